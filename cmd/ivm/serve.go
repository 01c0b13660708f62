package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/ivmlab/ivm/family"
	"github.com/ivmlab/ivm/serve"
)

func init() {
	register("serve", command{Synopsis: "ivm serve [flags] MODEL...",
		Short: "answer predictions, queries and updates over HTTP (JSON)", Order: 22,
		Run: cmdServe})
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
	var lim serve.Limits
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
	updates := fs.String("updates", "off", "POST .../update: off (refused), memory (held "+
		"until a restart) or save (written to the model file, renamed into place)")
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
	mode, err := parseUpdateMode(*updates)
	if err != nil {
		return err
	}
	log, err := newServeLogger(*logFormat, stderr)
	if err != nil {
		return err
	}
	sources, err := parseModelArgs(fs.Args())
	if err != nil {
		return err
	}
	models, err := serve.LoadModels(sources, describeServed)
	if err != nil {
		return err
	}
	models.AcceptUpdates(mode)
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
	log.Info("serving", "addr", ln.Addr().String(), "models", models.Names(),
		"workers", lim.Workers, "max_inflight", lim.MaxInflight, "max_rows", lim.MaxRows,
		"max_body", lim.MaxBody, "updates", *updates)
	return runServer(ctx, ln, serve.NewHandler(models, lim, log), log, t, hup)
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

// runServer serves h on ln until ctx ends (SIGTERM), then stops accepting connections and
// waits up to t.Shutdown for the requests in flight; log receives the server's own errors.
// A value on reload (SIGHUP) rereads the model files; requests go on meanwhile.
func runServer(ctx context.Context, ln net.Listener, h *serve.Handler, log *slog.Logger,
	t serveTimeouts, reload <-chan os.Signal) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: min(t.Read, 10*time.Second),
		ReadTimeout:  t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	for {
		select {
		case err := <-served:
			return err
		case <-reload:
			h.Reload()
		case <-ctx.Done():
			log.Info("shutting down: no new connections; waiting for the requests in flight",
				"timeout", t.Shutdown.String())
			sctx, cancel := context.WithTimeout(context.Background(), t.Shutdown)
			defer cancel()
			if err := hs.Shutdown(sctx); err != nil {
				return fmt.Errorf("shutdown: %w (requests still in flight were cut)", err)
			}
			log.Info("stopped")
			return nil
		}
	}
}

// describeServed describes a served model as ivm info does, for GET /v1/models.
func describeServed(path string, m family.Model) []string {
	var info bytes.Buffer
	mf, err := openModel(m, path)
	if err != nil {
		return []string{err.Error()}
	}
	writeModelInfo(&info, path, mf)
	return strings.Split(strings.TrimRight(info.String(), "\n"), "\n")
}

// parseModelArgs reads serve's MODEL arguments, NAME=FILE or FILE served under its base
// name without ".json"; names must be distinct.
func parseModelArgs(args []string) ([]serve.Source, error) {
	var out []serve.Source
	seen := map[string]string{}
	for _, a := range args {
		src := serve.Source{Path: a, Name: strings.TrimSuffix(filepath.Base(a), ".json")}
		if name, path, ok := strings.Cut(a, "="); ok && serve.ValidName(name) {
			src = serve.Source{Name: name, Path: path}
		} else if _, err := os.Stat(a); ok && err != nil {
			// NAME=FILE with a bad NAME, not a file whose name holds '='.
			return nil, fmt.Errorf("%s: NAME %q is not a model name: "+
				"use letters, digits, '.', '_' and '-', starting with a letter or digit", a, name)
		}
		if !serve.ValidName(src.Name) {
			return nil, fmt.Errorf("%s: %q cannot be a model's name in a URL "+
				"(letters, digits, '.', '_', '-'); name it with NAME=FILE", a, src.Name)
		}
		if prev, dup := seen[src.Name]; dup {
			return nil, fmt.Errorf("%s and %s would both be served as %q; name one with NAME=FILE",
				prev, a, src.Name)
		}
		seen[src.Name] = a
		out = append(out, src)
	}
	return out, nil
}

// parseUpdateMode reads ivm serve's -updates.
func parseUpdateMode(s string) (serve.UpdateMode, error) {
	switch s {
	case "off":
		return serve.UpdatesOff, nil
	case "memory":
		return serve.UpdatesInMemory, nil
	case "save":
		return serve.UpdatesSaved, nil
	}
	return 0, fmt.Errorf("-updates %q: want off, memory or save", s)
}
