//go:build !(amd64 || arm64 || 386 || arm || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package kernels

// littleEndian is false on a big-endian machine: ActN.setBlocks puts each word together.
const littleEndian = false
