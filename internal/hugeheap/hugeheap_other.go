//go:build !linux

package hugeheap

// Reserve does nothing outside Linux.
func Reserve() {}
