// Package tinymodel gives tests the tiny reference model (reference.TinyGGUF) as chapter 07's
// forward.Model, loaded once per test binary. The chapters that run the model (08 on) share it
// instead of each writing its own loader.
//
// It lives apart from package reference because it imports chapter 07, whose own tests import
// package reference: reference itself must not import any chapter.
package tinymodel

import (
	"sync"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
)

var load = sync.OnceValues(func() (*forward.Model, error) { return forward.Load(reference.TinyGGUF()) })

// Model returns the tiny model, loaded on the first call and shared by every later call of the
// test binary, so a test must not modify it (copy what it changes, as forward.NewModel does). A
// model that does not load fails t.
func Model(t testing.TB) *forward.Model {
	t.Helper()
	m, err := load()
	if err != nil {
		t.Fatalf("load the tiny model: %v", err)
	}
	return m
}
