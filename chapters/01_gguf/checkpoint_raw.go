package gguf

// TensorData returns a tensor's raw bytes from whichever shard holds it, without copying.
// The fast engine (package qwen3) reads BF16/F16/F32 weights through it and decodes them in its kernels.
func (c *Checkpoint) TensorData(name string) ([]byte, error) {
	s, err := c.shard(name)
	if err != nil {
		return nil, err
	}
	return s.TensorData(name)
}
