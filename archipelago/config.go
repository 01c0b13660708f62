package archipelago

import (
	"fmt"
	"strings"

	"github.com/ivmlab/ivm/dataset"
)

// Method is the model Fit samples.
type Method int

const (
	// Archipelago is the semi-supervised generative classifier of the paper (eq. 8): labelled
	// and unlabelled rows and the latent rejections. It is the zero value.
	Archipelago Method = iota
	// SoftmaxGP is the paper's comparator, the softmax GP classifier (eq. 1) on the labelled
	// rows alone, sampled by the same HMC moves; unlabelled rows are ignored.
	SoftmaxGP
)

// String returns the name ParseMethod accepts.
func (m Method) String() string {
	switch m {
	case Archipelago:
		return "archipelago"
	case SoftmaxGP:
		return "softmax"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod parses "archipelago" or "softmax".
func ParseMethod(s string) (Method, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "archipelago", "":
		return Archipelago, nil
	case "softmax":
		return SoftmaxGP, nil
	}
	return Archipelago,
		fmt.Errorf("archipelago: unknown method %q (want archipelago or softmax)", s)
}

// MarshalText writes the method's name (as in model files).
func (m Method) MarshalText() ([]byte, error) {
	if m != Archipelago && m != SoftmaxGP {
		return nil, fmt.Errorf("archipelago: unknown method %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText parses a method name.
func (m *Method) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("archipelago: empty method name")
	}
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// DefaultSamples is the number of posterior samples a Model keeps when Config.Samples is
// 0: the samples the chain has always kept for prediction (every ⌈retained/100⌉-th sweep),
// so that fitting then predicting gives what the one-shot runs gave.
const DefaultSamples = 100

// Config configures Fit. The zero value is the documented default of every field.
type Config struct {
	// Method picks Archipelago (default) or the softmax GP comparator.
	Method Method
	// Sweeps is the length of the chain (default 600) and Burn how many of its first sweeps
	// are discarded (default Sweeps/3); the step sizes adapt during the burn-in only.
	Sweeps, Burn int
	// Samples is how many posterior samples the model keeps for prediction (default
	// DefaultSamples): every ⌈(Sweeps−Burn)/Samples⌉-th sweep after the burn-in, so at most
	// Samples. Each holds the function values at the n points it conditions on (the rows
	// used and, for Archipelago, that sweep's rejections) and the kernel hyperparameters;
	// predicting costs one O(n³) factorisation per sample.
	Samples int
	// Anneal is the number of burn-in sweeps over which the unlabelled rows' factors are
	// phased in (default 3·Burn/4; −1: none). Archipelago only.
	Anneal int
	// AmpMoves is the number of Metropolis moves per sweep on the log amplitude with the
	// whitened functions fixed (default 20; −1: none).
	AmpMoves int
	// ARD gives every input its own length-scale (default: one shared length-scale).
	ARD bool
	// Seed seeds the chain and the predictive draws (math/rand/v2 PCG); equal seeds give
	// equal models and equal predictions.
	Seed uint64
	// Scaling is the input scaling fitted on all rows, stored in the model and applied by
	// Predict. dataset.ScaleAuto means none for this family: the kernel's initial
	// length-scale and the base density are set from the data's own spread, and leaving
	// the inputs as they are keeps the chains the one-shot runs sampled.
	Scaling dataset.Scaling
	// Sampler holds the sampler's other settings (initial kernel, priors, step sizes,
	// birth–death moves…; see Options). Its Sweeps, Burn, Thin, Seed, ARD, Anneal,
	// AmpMoves and Progress are replaced by the fields of Config.
	Sampler Options
	// Progress, if set, is called after every sweep.
	Progress func(SweepInfo)
}

// options returns the sampler's options for the configuration.
func (c Config) options() (Options, error) {
	if c.Method != Archipelago && c.Method != SoftmaxGP {
		return Options{}, fmt.Errorf("archipelago: unknown method %d", int(c.Method))
	}
	if c.Samples < 0 {
		return Options{},
			fmt.Errorf("archipelago: %d posterior samples, want 0 (the default, %d) or more",
				c.Samples, DefaultSamples)
	}
	o := c.Sampler
	o.Sweeps, o.Burn, o.Seed, o.ARD, o.Anneal, o.AmpMoves, o.Progress = c.Sweeps, c.Burn, c.Seed,
		c.ARD, c.Anneal, c.AmpMoves, c.Progress
	o.Thin = 0
	if err := o.defaults(); err != nil {
		return Options{}, err
	}
	samples := c.Samples
	if samples == 0 {
		samples = DefaultSamples
	}
	o.Thin = max(1, (o.Sweeps-o.Burn+samples-1)/samples)
	return o, nil
}
