// Package projected is the projected model: every training row regressed through m shared
// kernel centres, training rows drawn at random (the projected process, or subset of
// regressors; Rasmussen and Williams, §8.3), for binary, multi-class and regression tasks.
// Its latents at x are f(x) = K(x, C)·W with
//
//	W = (K_mnK_nm + λK_mm)⁻¹ K_mnY,
//
// one m×m factorisation shared by every class's code (+1 for the class, −1 for the others),
// where one-vs-rest IVMs select and learn once per class. With an additive part (Additive)
// the kernel adds σ²·Σ_j k_j(x_j), an rbf of each input alone, whose knots on each input's
// axis are further columns beside K(x, C), with the knots' kernel matrices beside λK_mm.
// Fit searches the rbf kernel's width, λ and the input scaling on held-out rows, then
// whether an additive part gains there; it fits the class probabilities (a softmax
// of the latents through a score map, with label noise) or a regression's predictive
// variance to training rows' leave-one-out latents, and compares the model with the
// constant predictor there (a calib.Baseline); Encode and Decode are its part of a model
// file.
//
// The package knows no Predictor: the root package ivm turns its Config into Options, picks
// the candidate input scalings and turns the Model's latents and scores into its
// predictions.
package projected
