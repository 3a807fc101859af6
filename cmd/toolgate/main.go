// Command toolgate is a policy-driven security gateway between an AI agent
// and the tools it calls. See the README for its commands.
package main

import "os"

func main() { os.Exit(execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
