"""Audio in: files, live inputs (microphones, system audio), resampled to 16 kHz mono float32."""
