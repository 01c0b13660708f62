// Package multiclass combines binary models into a multi-class classifier: one-vs-one by
// Wu, Lin and Weng's pairwise coupling (JMLR 5, 2004; libsvm's -b 1) or by the pairs'
// votes, and one-vs-rest by sharpening or taking the softmax of the classes' models. The
// binary models are any that satisfy Binary, as scikit-learn's OneVsOneClassifier wraps any
// estimator; the root package's one-vs-one predictor wraps its binary predictors so.
package multiclass
