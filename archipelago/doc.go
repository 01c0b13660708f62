// Package archipelago implements Archipelago (Adams & Ghahramani, "Archipelago:
// nonparametric Bayesian semi-supervised learning", ICML 2009): a generative
// semi-supervised classifier whose K class densities are built from K latent
// Gaussian-process functions g_k and sampled by MCMC over the latent history
// of the generative process.
//
// # Use
//
// Fit(x, y, Config) samples the chain for the rows of x with labels y (NaN marks an
// unlabelled row; the classes are the distinct labels) and returns a Model that keeps
// thinned posterior samples (Config.Samples, default DefaultSamples): in each, the
// functions' values at the points they were conditioned on and the kernel
// hyperparameters. Model.Predict gives the posterior predictive class probabilities of
// new rows (a noise.Prediction per row, Label the most probable class), Model.Save writes
// the model as versioned JSON (ModelFormat, "ivm-archipelago/1", with a "method" field
// for Archipelago or the softmax GP) and Load reads it back, checking every field.
// Config.Method picks Archipelago or the softmax GP comparator; the zero Config is the
// documented default of every option. The sampler itself (NewArchipelago, NewSoftmaxGP,
// Sampler.Run → Chain) stays available for diagnostics and the paper's experiments.
//
// # The model (§2)
//
// With Λ(x) = Σ_k exp g_k(x) and a base density π(x), a point and its label
// have likelihood p(x, l | g) = exp{g_l(x)} π(x) / (Z (1 + Λ(x))) (eq. 4); the
// label given the point is the softmax exp{g_l}/Λ (eq. 1) and the point alone
// has density Λπ/(Z(1+Λ)) (eq. 2). Z (eq. 3) is intractable, but data can be
// drawn exactly by rejection (Algorithm 1, Generate): propose x̃ ~ π, draw the
// g_k at x̃ from the GPs conditional on all values drawn so far, and accept
// with label k with probability exp{g_k}/(1+Λ) (eq. 5), or reject with
// probability 1/(1+Λ).
//
// # The sampler (§3)
//
// Inference treats the rejections of that process as latent: the state is the
// number M and locations of the rejections and the function values at the N
// labelled, P unlabelled and M rejected points, whose joint density (eq. 8) has
// no Z. One Sweep makes
//
//   - BirthDeath (≈10) insert-or-delete proposals for a rejection, with the
//     Metropolis–Hastings ratios of eqs. 9–10 for a constant b (default ½);
//   - one move of every rejection location (eq. 11), a Gaussian random walk
//     scaled by the base density;
//   - an HMC transition on each g_k in whitened coordinates ν_k = L⁻¹g_k
//     (eq. 12, analytic gradients);
//   - an HMC transition on the kernel hyperparameters given g (Neal 1997):
//     log amplitude and log inverse squared length-scales, one per input with ARD;
//   - AmpMoves (default 20) Metropolis moves on the log amplitude with the
//     whitened values ν held fixed, so that g scales with σ. Given g, a few
//     hundred function values pin σ² to within a few per cent, so the HMC
//     above can only let the amplitude creep: on Toy3 ln σ² was still rising
//     after hundreds of sweeps and the class regions formed early were
//     reshaped as it rose. In whitened coordinates the move costs O(nK) per
//     proposal and the amplitude reaches its posterior within a hundred
//     sweeps. The factors of eq. 8 keep growing as g is scaled up, so the
//     amplitude's prior (log-normal, SD AmpPriorSD = 0.5) is what holds it;
//   - a Gibbs update of the Gaussian base density's mean and covariance
//     (normal-inverse-Wishart prior), since given the history every one of the
//     N+P+M proposals is a draw from π.
//
// The burn-in is annealed (Options.Anneal): over its first three quarters the
// unlabelled points' factors Λ/(1+Λ) enter the function moves to a power β
// rising from 0 to 1, so the classes first take shape around the labels (as
// a classifier of the labelled points would draw them) and the unlabelled
// clusters then join the class that already covers them. Without it a chain
// started at g = 0 lets unlabelled clusters settle into whichever class
// reaches them first, and on the pinwheels some chains kept an arm split
// between two classes for the whole run. The retained sweeps always target
// eq. 8 itself (β = 1).
//
// A new rejection's (or moved rejection's) function values are drawn from the
// GP conditional on all current values, so the GP prior cancels from the
// ratios. The K functions share one covariance function (and so one Cholesky
// factor L at the points; the paper allows θ_k per class): each insertion,
// deletion or move updates L and ν in O(n²) — extension by a row, removal of a
// row by a rank-one update of the trailing block with the same Givens rotations
// applied to ν — and the full O(n³) factorisation happens only when the
// hyperparameters change or every tenth sweep.
//
// Predictions (§3.5, Chain.Predict) average the softmax of eq. 1 over retained
// samples and over draws of g(x*) from each sample's GP conditional (plot.ClassMap
// draws Fig. 3's mode and entropy maps from it), Chain.Fantasy the class-conditional
// fantasies, Autocorrelation, ESS and the per-sweep trace Fig. 4's diagnostics.
//
// NewSoftmaxGP runs the same HMC code on the softmax GP classifier (eq. 1 on
// the labelled points alone), the paper's comparator. The paper's Table 1 and
// Fig. 3 (data sets, labellings, the IVM comparators, the table) are experiments
// of package internal/reproduce (ivm reproduce archipelago, archipelago-fig3).
//
// Every chain takes an explicit seed (math/rand/v2 PCG) and is reproducible.
package archipelago
