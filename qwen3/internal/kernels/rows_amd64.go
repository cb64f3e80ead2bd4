package kernels

// The block results' row kernels of AddRows and CopyRows (rows_amd64.s).

//go:noescape
func addRowsAVX2(y *float32, yStride int, x *float32, n int)

//go:noescape
func copyRowsAVX2(y *float32, yStride int, x *float32, n int)
