package ivm

import (
	"gonum.org/v1/gonum/blas"

	"github.com/ivmlab/ivm/internal/rowdot"
)

// BLAS returns gonum's BLAS with its matrix product, Dgemm, computed by the assembly kernel
// this package computes kernel matrices with where the processor has one (amd64 with AVX2
// and FMA; elsewhere it is gonum's own). gonum's LAPACK spends most of a Cholesky
// factorisation in Dgemm, so a program that installs it,
//
//	blas64.Use(ivm.BLAS())
//
// loads models (whose active-set matrices are factorised afresh) and learns faster; the
// ivm command does. Products of 16 columns or more differ from gonum's in the last bits
// (the sums' order); A·B of fewer columns (a model's weights of a class or ten) keeps
// gonum's sums and bits, without its call for each element of A.
func BLAS() blas.Float64 { return rowdot.BLAS{} }
