# trainer/__init__.py: simdgrad's remote training server (python -m trainer); see trainer/README.md.
