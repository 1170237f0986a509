"""IR to LLVM IR (llvmlite)."""
