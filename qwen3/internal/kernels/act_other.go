//go:build !arm64 && !amd64

package kernels

// actArch is empty where no kernel keeps anything beside an Act's values (see dispatch_arm64.go).
type actArch struct{}

func (a *actArch) stale() {}
