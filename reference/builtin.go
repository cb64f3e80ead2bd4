package reference

import _ "embed" // the built-in checkpoint below

// tinyGGUF is reference/tiny-qwen3.gguf itself, compiled into every program that calls
// TinyGGUFBytes (the linker leaves it out of those that do not).
//
//go:embed tiny-qwen3.gguf
var tinyGGUF []byte

// TinyGGUFBytes returns the bytes of the tiny reference checkpoint (the file TinyGGUF names),
// embedded in the program at build time with go:embed. A program that calls it needs no source
// tree at run time: the qwen3 command's built-in model is this, so `go install` or a -trimpath
// build runs from any directory. The slice is shared and must not be modified.
func TinyGGUFBytes() []byte { return tinyGGUF }
