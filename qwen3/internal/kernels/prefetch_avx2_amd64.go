package kernels

// The prototypes of prefetch_avx2_amd64.s.

//go:noescape
func prefetchL2(p *byte, n int)
