"""How the engine runs on this machine: BLAS, MLX threads and executors, paths, safe writes, doctor."""
