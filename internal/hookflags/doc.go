// Package hookflags names the flags of `toolgate hook claude-code`. The small
// client cmd/toolgate-hook hands every flag but its own to that command when
// it falls back to it, and refuses a flag the command would refuse, so a
// mistyped --policy is not silently ignored while the service answers. A
// test in cmd/toolgate keeps the list in step with the command's flags.
//
// It holds names only: what the flags mean is the command's business.
package hookflags
