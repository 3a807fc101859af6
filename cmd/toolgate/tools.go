package main

import (
	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/tools"
)

func newToolsCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Print the tool definitions for an agent",
		Example: `  $ toolgate tools --format openai
  $ toolgate tools --format markdown > TOOLS.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := tools.Export(format, tools.All())
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "markdown", "output `FORMAT`: openai, anthropic, mcp or markdown")
	return cmd
}
