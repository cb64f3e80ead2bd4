package gguf

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTruncated is wrapped by every error that reports a file ending in the middle of a field.
// Test for it with errors.Is.
var ErrTruncated = errors.New("file is truncated")

// ErrNotFound is wrapped by the errors of lookups for a metadata key or tensor name that is absent.
var ErrNotFound = errors.New("not found")

// FormatError reports a file that breaks its format: which file, which field, at which byte.
// Every problem this package finds in a GGUF file, a safetensors file or a config.json is one, in
// the style of debug/elf's FormatError, so that a program can inspect it instead of matching text:
//
//	var fe *gguf.FormatError
//	if errors.As(err, &fe) {
//		fmt.Println(fe.File, fe.Field, fe.Offset) // model.gguf  tensor "blk.3.attn_q.weight"  5936864
//	}
//
// Its message reads "gguf: model.gguf: tensor "blk.3.attn_q.weight" at byte 5936864: data ends at
// byte 9123456, beyond the file's 9000000".
type FormatError struct {
	Format string // "gguf", "safetensors" or "config.json"
	File   string // the file's path; empty when the bytes were parsed from memory
	Field  string // what was being read: "header.version", `tensor "blk.0.attn_q.weight" type`, "rope_parameters.rope_type"
	Offset int64  // the byte of the file where the field starts; -1 when it is not known
	Msg    string // what is wrong with it
	Err    error  // the underlying error, if any (ErrTruncated, a JSON syntax error); errors.Is sees it
}

func (e *FormatError) Error() string {
	var b strings.Builder
	b.WriteString(e.Format + ": ")
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	b.WriteString(e.Field)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " at byte %d", e.Offset)
	}
	b.WriteString(": " + e.Msg)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

// formatErr builds a FormatError of a GGUF file.
func formatErr(field string, off int64, format string, args ...any) *FormatError {
	return &FormatError{Format: "gguf", Field: field, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// stErr builds a FormatError of a safetensors file.
func stErr(field string, off int64, format string, args ...any) *FormatError {
	return &FormatError{Format: "safetensors", Field: field, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// inFile records path as the file of every FormatError in err (which may join several) that has none yet.
func inFile(err error, path string) error {
	eachFormatError(err, func(fe *FormatError) {
		if fe.File == "" {
			fe.File = path
		}
	})
	return err
}

// eachFormatError calls fn for every FormatError in err's tree, including each error of an errors.Join.
func eachFormatError(err error, fn func(*FormatError)) {
	switch e := err.(type) {
	case nil:
	case *FormatError:
		fn(e)
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			eachFormatError(x, fn)
		}
	case interface{ Unwrap() error }:
		eachFormatError(e.Unwrap(), fn)
	}
}
