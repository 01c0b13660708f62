package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

func init() {
	register("serve", command{Synopsis: "ivm serve [flags] MODEL...",
		Short: "answer predictions over HTTP (JSON)", Order: 22, Run: cmdServe})
}

// serveTimeouts are the http.Server's timeouts and how long a shutdown waits.
type serveTimeouts struct {
	Read, Write, Idle, Shutdown time.Duration
}

func cmdServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve",
		"ivm serve [flags] MODEL...  (MODEL: FILE, served as its name without .json, or NAME=FILE)",
		stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	var lim serveLimits
	fs.Int64Var(&lim.MaxBody, "max-body", 8<<20, "largest request body in bytes (413 above)")
	fs.IntVar(&lim.MaxRows, "max-rows", 1000, "most rows in one request (413 above)")
	fs.IntVar(&lim.Workers, "workers", 0,
		"predictions computed at once (0: all cores); other requests wait")
	fs.IntVar(&lim.MaxInflight, "max-inflight", 256,
		"requests admitted at once, reading, waiting or predicting (503 above)")
	var t serveTimeouts
	fs.DurationVar(&t.Read, "read-timeout", 30*time.Second,
		"time to read a request, body included (408 for a slow body)")
	fs.DurationVar(&t.Write, "write-timeout", 60*time.Second,
		"time from the end of a request's headers to the end of its answer")
	fs.DurationVar(&t.Idle, "idle-timeout", 2*time.Minute,
		"how long an idle keep-alive connection stays open")
	fs.DurationVar(&t.Shutdown, "shutdown-timeout", 30*time.Second,
		"how long SIGTERM waits for requests in flight")
	logFormat := fs.String("log", "json", "log format on stderr: json or text")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	if lim.Workers <= 0 {
		lim.Workers = runtime.GOMAXPROCS(0)
	}
	if lim.MaxBody < 1 || lim.MaxRows < 1 || lim.MaxInflight < 1 {
		return fmt.Errorf("-max-body, -max-rows and -max-inflight must be positive")
	}
	log, err := newServeLogger(*logFormat, stderr)
	if err != nil {
		return err
	}
	sources, err := parseModelArgs(fs.Args())
	if err != nil {
		return err
	}
	models, err := loadRegistry(sources)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	releaseSignals() // after serve's own handlers are in place, so no signal finds none
	defer signal.Stop(hup)
	return runServer(ctx, ln, newServer(models, lim, log), t, hup)
}

func newServeLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("-log %q: want json or text", format)
}

// runServer serves on ln until ctx ends (SIGTERM), then stops accepting connections and
// waits up to t.Shutdown for the requests in flight. A value on reload (SIGHUP) rereads the
// model files; requests go on meanwhile.
func runServer(ctx context.Context, ln net.Listener, s *server, t serveTimeouts,
	reload <-chan os.Signal) error {
	hs := &http.Server{Handler: s.handler(), ReadHeaderTimeout: min(t.Read, 10*time.Second),
		ReadTimeout:  t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	var names []string
	for _, m := range s.models.list() {
		names = append(names, m.name)
	}
	s.log.Info("serving", "addr", ln.Addr().String(), "models", names, "workers", s.limits.Workers,
		"max_inflight", s.limits.MaxInflight, "max_rows", s.limits.MaxRows, "max_body", s.limits.MaxBody)
	for {
		select {
		case err := <-served:
			return err
		case <-reload:
			replaced, refused := s.models.reloadAll(s.log)
			s.stats.reloads.Add(int64(replaced))
			s.stats.refused.Add(int64(refused))
			s.log.Info("reload done", "replaced", replaced, "refused", refused)
		case <-ctx.Done():
			s.log.Info("shutting down: no new connections; waiting for the requests in flight", "timeout",
				t.Shutdown.String())
			sctx, cancel := context.WithTimeout(context.Background(), t.Shutdown)
			defer cancel()
			if err := hs.Shutdown(sctx); err != nil {
				return fmt.Errorf("shutdown: %w (requests still in flight were cut)", err)
			}
			s.log.Info("stopped")
			return nil
		}
	}
}
