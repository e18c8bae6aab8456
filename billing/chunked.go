package billing

// chunked is a list that grows a chunk at a time: adding an item never copies the others,
// as growing one slice would (by a quarter at a time when large, so a month's few hundred
// thousand bill lines would be copied over and over).
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkLen = 4096

// add appends v and returns its index.
func (c *chunked[T]) add(v T) int {
	if c.n%chunkLen == 0 {
		c.chunks = append(c.chunks, make([]T, 0, chunkLen))
	}
	k := len(c.chunks) - 1
	c.chunks[k] = append(c.chunks[k], v)
	c.n++
	return c.n - 1
}

// at is the item of index i.
func (c *chunked[T]) at(i int) *T { return &c.chunks[i/chunkLen][i%chunkLen] }

// len is how many items c holds.
func (c *chunked[T]) len() int { return c.n }
