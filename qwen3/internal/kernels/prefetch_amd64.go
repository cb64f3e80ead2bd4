package kernels

//go:noescape
func prefetchL2(p *byte, n int)
