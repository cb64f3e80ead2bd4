//go:build !amd64 && !arm64

package kernels

// arenaPlanes: no level of this architecture keeps byte planes beside an Act's values.
func arenaPlanes(m *arena, what string, a *Act) {}
