# JSON Schemas for what capwatch writes and reads; installed for users' tools.
dist_pkgdata_DATA += schemas/report.schema.json schemas/trace.schema.json schemas/profile.schema.json \
	schemas/request.schema.json schemas/outcome.schema.json
