// Package sandbox will run exec commands inside bubblewrap with the profile
// the policy chose (see DESIGN.md, "Sandbox").
//
// Not built yet: it arrives with `toolgate run`. Nothing in toolgate executes
// commands today; `toolgate check` and `toolgate explain` only decide.
package sandbox
