"""The audit workflow's roles: intake, the Auditor, Critic and Tester, their analysers and proofs."""
