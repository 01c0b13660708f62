package calib

// LabelNoiseLevels are the label noise levels ε a calibration chooses from (MixUniform). The
// least is not 0: a held-out set of a few hundred or thousand rows cannot show that a class
// is impossible, and a probability of 0 (or 10⁻³⁰, after sharpening) makes one mistake cost
// without bound. Where the model is never wrong, 0.001 costs −ln(1 − 0.001) ≈ 0.001 per row.
var LabelNoiseLevels = []float64{0.001, 0.003, 0.01, 0.03}

// LossTol is the least fall in the mean held-out −ln p per row worth acting on: a higher
// label noise is chosen only where it lowers the loss by more. Smaller differences are
// below what a few hundred held-out rows can resolve.
const LossTol = 1e-4
