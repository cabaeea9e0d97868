package main

import "github.com/spf13/cobra"

// commandGroups lists the top-level commands, in help order. Each lives in
// its own file.
var commandGroups = []func() *cobra.Command{
	newInitCmd,
	newDoctorCmd,
	newShieldCmd,
	newEvalCmd,
	newPolicyCmd,
	newAuditCmd,
	newDLPCmd,
	newChronicleCmd,
	newIFCCmd,
	newServeCmd,
	newMCPCmd,
	newHookCmd,
	newJudgeCmd,
	newConfigCmd,
	newSandboxCmd,
	newDemoCmd,
	newStartCmd,
	newChatCmd,
	newRunCmd,
	newStatusCmd,
	newStopCmd,
	newRestartCmd,
	newEngineCmd,
	newAgentCmd,
	newSandboxExecCmd,
}
