//go:build !amd64 && !arm64

package kernels

// Off amd64 and arm64 only the plain Go kernels exist.
const cpuLevel = Generic

var levelNames = [...]string{"generic"}

// numLevels is the number of levels of this architecture, Generic included.
const numLevels = len(levelNames)
