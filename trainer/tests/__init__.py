# trainer/tests: unittest suite of the remote training server (see trainer/README.md for the command).
