// Package ivm is the Informative Vector Machine: a sparse Gaussian-process learner that keeps a
// small active set of d training points chosen greedily by information gain, with assumed-density
// filtering (ADF) for non-Gaussian noise models (Lawrence, Seeger and Herbrich, "The Informative
// Vector Machine: a practical probabilistic alternative to the SVM"; the papers are listed in
// README.md).
//
// Most callers need Fit and the Predictor it returns: Fit picks the task from the targets (binary,
// multi-class by one-vs-one, one-vs-rest or, above 5 000 rows, the projected model of all the
// classes' codes, projected.Model; regression, ordinal, semi-supervised), scales inputs, chooses
// the active set size (on large sets, chosen from a random pool of ten rows per active point:
// SearchCandidates) and the kernel — by default (Search) one rbf kernel for all of a task's
// classes, with the input scaling and the selection criterion, by the log loss of held-out rows;
// Algorithm 2 of the paper on request and for ordinal and semi-supervised tasks — and calibrates
// the reported probabilities (sharpness, label noise, softmax; a small binary task's label
// regression, SingleKind.Logistic, alone or blended with the probit model, BlendKind); Predict
// gives labels, class probabilities and latent moments (noise.Prediction); Save and Load read and
// write versioned model files. A Predictor holds its models as one Kind: SingleKind,
// OneVsRestKind, OneVsOneKind (pairs combined by package multiclass), BlendKind or
// ProjectedKind, each a kind of model file. The command-line tool is a thin layer over them.
//
// Every model family has the same shape — Fit(x, y[, task], Config) → model, Predict, Save, and
// a package Load: this package's IVM, package multitask (the multi-task IVM), package ssmtr (SSTR,
// SMTR, SSMTR, SSMTRPI) and package archipelago (Archipelago and the softmax GP). NaN in y marks an
// unlabelled row in all of them. Each registers its model-file format with package family, whose
// Load reads a model file of any family and returns a family.Model that predicts rows.
//
// The engine — Algorithm 1 of that paper in the representation Σ = K − MᵀM of its eqs.
// 27–30 (O(d²N) time, O(dN) memory), the Model it leaves, refinement and Algorithm 2 — lives
// in package engine, which the multi-task IVM (package multitask) shares; package infer holds the
// inference both use (EP on site approximations, Cholesky with recorded jitter). Config takes
// the engine's option types as they are (engine.LearnOptions, engine.CriterionChoice, …), and
// the input scalings are package dataset's (dataset.ScaleStd, …).
//
// Config's choices are typed enums whose zero value is the documented default (Task, Learning,
// Scaling, CriterionChoice, Transform, and in Learn the Objective and Optimizer), each with String,
// a ParseX function taking the command line's spellings, and MarshalText/UnmarshalText. The last
// four are package engine's types, shared with multitask.Config, so that a value means the same
// thing, with the same number, in both families; where a family's default differs (the kernel
// objective: full-data here, EP evidence for the multi-task IVM) the zero value is an explicit
// "auto" that each family documents.
//
// Kernels live in package kern and noise models (Gaussian, probit, ordered categorical, null
// category) in package noise.
package ivm
