package main

import (
	"math"
	"slices"
	"time"
)

// interleave runs reps rounds. Each round runs every variant once; the order
// rotates from round to round, so no variant always goes first or always
// follows the same neighbour, and a burst of load on the shared machine
// lands on all of them alike. rep is the round's number, from 0.
func interleave(reps int, variants ...func(rep int) error) error {
	for r := 0; r < reps; r++ {
		for k := range variants {
			if err := variants[(k+r)%len(variants)](r); err != nil {
				return err
			}
		}
	}
	return nil
}

// median of xs (the mean of the middle two for an even count); 0 when empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// percentile returns the p-th percentile (0 < p <= 100) of xs by the
// nearest-rank method; 0 when empty.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = max(1, min(rank, len(s)))
	return s[rank-1]
}

// spread is one figure measured in several repetitions: its median and its
// range.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"reps"`
}

func summarize(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	return spread{Median: median(xs), Min: slices.Min(xs), Max: slices.Max(xs), N: len(xs)}
}

// ratios pairs a and b repetition by repetition: measured in the same
// round, each pair saw the same machine.
func ratios(a, b []float64) []float64 {
	n := min(len(a), len(b))
	out := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if b[i] != 0 {
			out = append(out, a[i]/b[i])
		}
	}
	return out
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
