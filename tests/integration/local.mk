# Integration tests: real commands under the real capwatch binary.
