-- What the operations console counts and lists: today's matches (rooms since midnight)
-- and the reports handled most recently.
CREATE INDEX rooms_created ON rooms (created_at);
CREATE INDEX reports_resolved ON reports (resolved_at);
