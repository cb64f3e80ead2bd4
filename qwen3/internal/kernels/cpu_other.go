//go:build !amd64 && !arm64

package kernels

// Off amd64 and arm64 only the plain Go kernels exist.
const cpuLevel = Generic

var levelNames = []string{"generic"}

func archSetLevel(Level) {}
