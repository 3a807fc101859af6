//go:build !linux

package hugeheap

// Held reports false: nothing is reserved outside Linux.
func Held() (percent int, ok bool) { return 0, false }
