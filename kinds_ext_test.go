package ivm_test

import (
	"github.com/ivmlab/ivm"
	"github.com/ivmlab/ivm/engine"
)

// Test helpers: a predictor's kind, nil where it is of another.

func asSingle(p *ivm.Predictor) *ivm.SingleKind { k, _ := p.Kind.(*ivm.SingleKind); return k }
func asOVR(p *ivm.Predictor) *ivm.OneVsRestKind { k, _ := p.Kind.(*ivm.OneVsRestKind); return k }
func asOVO(p *ivm.Predictor) *ivm.OneVsOneKind  { k, _ := p.Kind.(*ivm.OneVsOneKind); return k }
func asBlend(p *ivm.Predictor) *ivm.BlendKind   { k, _ := p.Kind.(*ivm.BlendKind); return k }

// modelsOf returns the IVM models of a predictor of one model or one-vs-rest models.
func modelsOf(p *ivm.Predictor) []*engine.Model {
	switch k := p.Kind.(type) {
	case *ivm.SingleKind:
		return []*engine.Model{k.Model}
	case *ivm.OneVsRestKind:
		return k.Models
	}
	return nil
}
