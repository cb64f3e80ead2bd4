//go:build !amd64 && !arm64

package kernels

import "unsafe"

// The dispatch tables of the architectures without assembly kernels: all empty, so every
// operation runs its plain Go form.
var arch archForms

// actArch is empty where no kernel keeps anything beside an Act's values.
type actArch struct{}

func (a *actArch) stale()           {}
func (a *actArch) ready(n int) bool { return false }

// hide returns p. Here it hides nothing: the buffers of calls through noEscape may move to the
// heap on these architectures, which run every operation in plain Go anyway.
func hide(p unsafe.Pointer) unsafe.Pointer { return p }

func hide3(a, b, c unsafe.Pointer) (unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) { return a, b, c }
