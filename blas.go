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
// ivm command does. Products differ from gonum's in the last bits (the sums' order).
func BLAS() blas.Float64 { return rowdot.BLAS{} }
