package ivm

// Test helpers: a predictor's kind, nil where it is of another.

func asSingle(p *Predictor) *SingleKind       { k, _ := p.Kind.(*SingleKind); return k }
func asOVR(p *Predictor) *OneVsRestKind       { k, _ := p.Kind.(*OneVsRestKind); return k }
func asOVO(p *Predictor) *OneVsOneKind        { k, _ := p.Kind.(*OneVsOneKind); return k }
func asBlend(p *Predictor) *BlendKind         { k, _ := p.Kind.(*BlendKind); return k }
func asProjected(p *Predictor) *ProjectedKind { k, _ := p.Kind.(*ProjectedKind); return k }
