package kernels

// The prototypes of tileqn_avx512vnni_amd64.s, and the Go that calls them as TileQN's table wants.

// tileQNKernelVNNI is an assembly kernel for 16 tokens or 32, over rows 8·groups.
type tileQNKernelVNNI = func(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

//go:noescape
func tileQN16Q8_0VNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

//go:noescape
func tileQN32Q8_0VNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

//go:noescape
func tileQN16Q4_0VNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

//go:noescape
func tileQN32Q4_0VNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

//go:noescape
func tileQN16Q4_KVNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

//go:noescape
func tileQN32Q4_KVNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

//go:noescape
func tileQN16Q6_KVNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

//go:noescape
func tileQN32Q6_KVNNI(w *byte, rowBytes, groups int, x *int32, xs *float32, nb int, out *float32, outStride, ntok int)

// The branches of tileQNVNNI.
const (
	tileQN16 = "16 tokens"
	tileQN32 = "32 tokens"
)

// tileQNVNNI is TileQN's form for one type: every token group of x through the 16- or 32-token
// kernel (a last group of 17 to 32 tokens through the 32-token one), over the rows of whole groups
// of 16 (two of the kernels' groups of 8); it returns how many rows it did (the rest go to plain
// Go).
func tileQNVNNI(op string, k16, k32 tileQNKernelVNNI) tileQNKernel {
	return func(w *byte, rowBytes, rows int, x *ActN, out []float32, outStride int) int {
		groups := rows / 16
		if groups == 0 {
			return 0
		}
		nb := x.K / ActBlock
		for g := 0; g*ActNLanes < x.N; {
			left := x.N - g*ActNLanes
			k, step := k16, 1
			if left > ActNLanes {
				k, step = k32, 2
				traceSub(op, tileQN32)
			} else {
				traceSub(op, tileQN16)
			}
			k(w, rowBytes, 2*groups, &x.Q[g*nb*ActBlock/2*ActNLanes], &x.SS[g*nb*2*ActNLanes], nb,
				&out[g*ActNLanes*outStride], outStride, min(2*ActNLanes, left))
			g += step
		}
		return groups * 16
	}
}

var (
	tileQNQ8_0VNNI = tileQNVNNI("TileQN/Q8_0", tileQN16Q8_0VNNI, tileQN32Q8_0VNNI)
	tileQNQ4_0VNNI = tileQNVNNI("TileQN/Q4_0", tileQN16Q4_0VNNI, tileQN32Q4_0VNNI)
	tileQNQ4_KVNNI = tileQNVNNI("TileQN/Q4_K", tileQN16Q4_KVNNI, tileQN32Q4_KVNNI)
	tileQNQ6_KVNNI = tileQNVNNI("TileQN/Q6_K", tileQN16Q6_KVNNI, tileQN32Q6_KVNNI)
)
