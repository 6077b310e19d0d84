# libcapwatch-preload.so (issue 5): not built yet.
