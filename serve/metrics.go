package serve

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxRuleLabels bounds the distinct rule label values of
// toolgate_decisions_total (besides "none" and "other"); rules first seen
// after that are counted as "other".
const MaxRuleLabels = 500

// decisionBuckets are the upper bounds, in seconds, of the
// toolgate_decision_seconds histogram.
var decisionBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}

// metrics holds the service's counters. One mutex is plenty: an update is a
// map increment, far cheaper than the decision it counts.
type metrics struct {
	mu        sync.Mutex
	decisions map[[2]string]uint64 // decision, rule
	rules     map[string]bool      // distinct rule labels in use
	requests  map[[2]string]uint64 // path, code
	reloads   map[string]uint64    // ok, rejected
	polls     map[string]uint64    // bundle polls: unchanged, changed, error
	buckets   []uint64             // per bucket (not cumulative); the last is +Inf
	sum       time.Duration
	count     uint64
}

func newMetrics() *metrics {
	return &metrics{
		decisions: map[[2]string]uint64{},
		rules:     map[string]bool{},
		requests:  map[[2]string]uint64{},
		reloads:   map[string]uint64{"ok": 0, "rejected": 0},
		polls:     map[string]uint64{},
		buckets:   make([]uint64, len(decisionBuckets)+1),
	}
}

// decision counts one decision; rule is the first reason's rule ("" for none).
func (m *metrics) decision(decision, rule string) {
	switch decision {
	case "allow", "deny", "ask":
	default:
		decision = "other"
	}
	if rule == "" {
		rule = "none"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if rule != "none" && !m.rules[rule] {
		if len(m.rules) >= MaxRuleLabels {
			rule = "other"
		} else {
			m.rules[rule] = true
		}
	}
	m.decisions[[2]string{decision, rule}]++
}

// observe records how long one decision took.
func (m *metrics) observe(d time.Duration) {
	s := d.Seconds()
	i := sort.SearchFloat64s(decisionBuckets, s) // first bound >= s
	m.mu.Lock()
	defer m.mu.Unlock()
	m.buckets[i]++
	m.sum += d
	m.count++
}

func (m *metrics) request(path string, code int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{path, strconv.Itoa(code)}]++
}

func (m *metrics) reload(result string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reloads[result]++
}

func (m *metrics) bundlePoll(result string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.polls[result]++
}

// write renders the Prometheus text exposition format (version 0.0.4).
func (m *metrics) write(w io.Writer, digest string) error {
	m.mu.Lock()
	var b strings.Builder
	b.WriteString("# HELP toolgate_decisions_total Decisions made, by decision and by the rule of the first reason (\"none\" without one, \"other\" past the label limit).\n")
	b.WriteString("# TYPE toolgate_decisions_total counter\n")
	for _, k := range sortedPairs(m.decisions) {
		fmt.Fprintf(&b, "toolgate_decisions_total{decision=\"%s\",rule=\"%s\"} %d\n", escape(k[0]), escape(k[1]), m.decisions[k])
	}
	b.WriteString("# HELP toolgate_decision_seconds Time to decide one call of /v1/check.\n")
	b.WriteString("# TYPE toolgate_decision_seconds histogram\n")
	var cum uint64
	for i, le := range decisionBuckets {
		cum += m.buckets[i]
		fmt.Fprintf(&b, "toolgate_decision_seconds_bucket{le=\"%s\"} %d\n", strconv.FormatFloat(le, 'g', -1, 64), cum)
	}
	cum += m.buckets[len(decisionBuckets)]
	fmt.Fprintf(&b, "toolgate_decision_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	fmt.Fprintf(&b, "toolgate_decision_seconds_sum %s\n", strconv.FormatFloat(m.sum.Seconds(), 'g', -1, 64))
	fmt.Fprintf(&b, "toolgate_decision_seconds_count %d\n", m.count)
	b.WriteString("# HELP toolgate_policy_reloads_total Policy reloads, by result: ok (swapped in) or rejected (the old policy kept).\n")
	b.WriteString("# TYPE toolgate_policy_reloads_total counter\n")
	for _, r := range sortedKeys(m.reloads) {
		fmt.Fprintf(&b, "toolgate_policy_reloads_total{result=\"%s\"} %d\n", escape(r), m.reloads[r])
	}
	if len(m.polls) > 0 {
		b.WriteString("# HELP toolgate_bundle_polls_total Looks at the policy bundle (--bundle-poll), by result: unchanged, changed (a reload followed) or error.\n")
		b.WriteString("# TYPE toolgate_bundle_polls_total counter\n")
		for _, r := range sortedKeys(m.polls) {
			fmt.Fprintf(&b, "toolgate_bundle_polls_total{result=\"%s\"} %d\n", escape(r), m.polls[r])
		}
	}
	b.WriteString("# HELP toolgate_http_requests_total HTTP requests, by path (\"other\" for unknown paths) and status code.\n")
	b.WriteString("# TYPE toolgate_http_requests_total counter\n")
	for _, k := range sortedPairs(m.requests) {
		fmt.Fprintf(&b, "toolgate_http_requests_total{path=\"%s\",code=\"%s\"} %d\n", escape(k[0]), escape(k[1]), m.requests[k])
	}
	m.mu.Unlock()
	b.WriteString("# HELP toolgate_policy_info The policy in force.\n")
	b.WriteString("# TYPE toolgate_policy_info gauge\n")
	fmt.Fprintf(&b, "toolgate_policy_info{digest=\"%s\"} 1\n", escape(digest))
	_, err := io.WriteString(w, b.String())
	return err
}

func sortedPairs(m map[[2]string]uint64) [][2]string {
	out := make([][2]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

func sortedKeys(m map[string]uint64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// escape quotes a label value: backslash, double quote and line feed.
func escape(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return r.Replace(s)
}
