//go:build amd64 || arm64 || 386 || arm || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package kernels

// littleEndian: an int32 in memory is its low 16 bits, then its high 16 bits (ActN.setBlocks
// reads two int16 values as one int32 word).
const littleEndian = true
