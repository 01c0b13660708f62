// Package plot draws the figures of the IVM papers for trained models: decision boundaries
// of classifiers with their active sets, ordinal category boundaries, regression surfaces
// and error bars, the null category model's boundary and null region, learning traces and
// generic curves. It is separate from the engine so that the root package does not depend
// on the plotting library (gonum.org/v1/plot).
//
// Every function returns a Figure: the gonum plot (or stacked panels) ready to save, and
// the data drawn in it — the surfaces evaluated on a grid, the contour lines in data
// coordinates, the curves — so that callers and tests can check a figure without looking
// at pixels. Save and Figure.Save write PNG, SVG or PDF chosen by the file's extension.
//
// The figures, after Lawrence, Seeger & Herbrich, "The Informative Vector Machine" (IVM
// paper) and Lawrence, Platt & Jordan, "Extensions of the IVM" (extensions paper):
//
//   - Classification (IVM paper Fig. 3): the p(y=+1|x) = 0.5 contour solid, the 0.25 and
//     0.75 contours dashed, the two classes with different markers, active points circled.
//   - Ordinal (Fig. 4): for each boundary k between categories k and k+1 the contour
//     P(y > k | x) = 0.5 (the boundary, solid) and the expected quartiles
//     P(y > k | x) = 0.25 and 0.75 (dashed).
//   - Regression (Fig. 2): for 1-D inputs the data, the predictive mean and a ±2 standard
//     deviation band; for 2-D inputs the predictive mean as a heat map; active points
//     marked.
//   - NullCategory (extensions paper Fig. 5): labelled classes, unlabelled points small,
//     active points large, the decision boundary (latent μ+b = 0, solid) and the edges of
//     the null region (μ+b = ±w/2, dotted).
//   - Trace: the kernel objective before and after each outer iteration of Algorithm 2 and
//     the held-out log likelihood, from a model file's learning trace.
//   - Curves: several named (x, y) series with axis labels.
//   - LearningCurves: each strategy's mean figure against the labels used, with a band of
//     ± 1 sd over its runs and reference lines (the full-data model), for bench/active.sh.
//   - MultiTask (extensions paper Fig. 7): one panel per task, the points the model used
//     circled.
//   - ClassMap and ClassCurves: a multi-class model's most probable class as regions and its
//     predictive entropy (2-D), or each class's probability along one input.
//
// Model picks one of the first four from the model's noise model; Predictions draws a whole
// predictor (a blend, a projected model, several classes) with Classification, Regression or
// ClassMap from what ivm.Predictor.Predict returns.
package plot
