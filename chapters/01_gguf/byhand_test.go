package gguf_test

import (
	"encoding/binary"
	"fmt"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// Example_byHand is the worked example of the package doc: a 24-byte header read by hand, one
// number in float16 and in bfloat16, and one Q8_0 block. Every number is small enough to check
// on paper.
func Example_byHand() {
	// 1. The header: "GGUF", then u32 version 3, u64 tensor count 0, u64 metadata count 0, all
	// little-endian (lowest byte first).
	h := []byte{'G', 'G', 'U', 'F', 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	f, err := gguf.Parse(h)
	fmt.Printf("bytes 4..7 = % x -> version %d, %d tensors, %d metadata entries (err %v)\n", h[4:8], f.Version, f.TensorCount, f.KVCount, err)
	be := []byte{'G', 'G', 'U', 'F', 0, 0, 0, 3}
	fmt.Printf("bytes 4..7 = % x read little-endian: %d\n", be[4:8], binary.LittleEndian.Uint32(be[4:]))
	_, err = gguf.Parse(append(be, h[8:]...))
	fmt.Println(err)

	// 2. One number, 3.140625 = 2^1 x 1.5703125, in both 16-bit formats.
	x := float32(3.140625)
	b16, f16 := gguf.F32ToBF16(x), gguf.F32ToF16(x)
	fmt.Printf("bf16 %#04x = sign %d, exponent %d-127, mantissa %d/128 -> %g\n", b16, b16>>15, b16>>7&0xff, b16&0x7f, gguf.BF16ToF32(b16))
	fmt.Printf("f16  %#04x = sign %d, exponent %d-15,  mantissa %d/1024 -> %g\n", f16, f16>>15, f16>>10&0x1f, f16&0x3ff, gguf.F16ToF32(f16))

	// 3. One Q8_0 block: a float16 scale d = 0.25 (bits 0x3400), then 32 signed bytes q; y = d*q.
	block := make([]byte, 34)
	binary.LittleEndian.PutUint16(block, 0x3400)
	for j, q := range []int8{4, -8, 1, 0, 127, -127} {
		block[2+j] = byte(q)
	}
	y := make([]float32, 32)
	gguf.DequantizeQ8_0(y, block)
	fmt.Printf("d = %g, q = [4 -8 1 0 127 -127 0 ...] -> y = %v ...\n", gguf.F16ToF32(0x3400), y[:6])
	// Output:
	// bytes 4..7 = 03 00 00 00 -> version 3, 0 tensors, 0 metadata entries (err <nil>)
	// bytes 4..7 = 00 00 00 03 read little-endian: 50331648
	// gguf: header.version at byte 4: 0x3000000 looks like a big-endian file; only little-endian is supported
	// bf16 0x4049 = sign 0, exponent 128-127, mantissa 73/128 -> 3.140625
	// f16  0x4248 = sign 0, exponent 16-15,  mantissa 584/1024 -> 3.140625
	// d = 0.25, q = [4 -8 1 0 127 -127 0 ...] -> y = [1 -2 0.25 0 31.75 -31.75] ...
}

// Example_bfloat16Range rounds three numbers to both 16-bit formats (the package doc's "Why
// bfloat16, and not float16"): float16 has 5 exponent bits and 10 mantissa bits, bfloat16 the 8
// exponent bits of a float32 and 7 mantissa bits.
func Example_bfloat16Range() {
	for _, v := range []float32{70000, 1e-8, 1 + 1.0/256} {
		fmt.Printf("%-10g -> f16 %-10g bf16 %g\n", v, gguf.F16ToF32(gguf.F32ToF16(v)), gguf.BF16ToF32(gguf.F32ToBF16(v)))
	}
	// Output:
	// 70000      -> f16 +Inf       bf16 70144
	// 1e-08      -> f16 0          bf16 1.0011718e-08
	// 1.0039062  -> f16 1.0039062  bf16 1
}
