-- A kept trend figure may be a first read that nothing has confirmed whole yet (no request
-- checked that its last page was the last): it is served, and asked again once to be
-- confirmed before it is final. Figures kept before this migration were all confirmed whole.
ALTER TABLE trend_points ADD COLUMN confirmed boolean NOT NULL DEFAULT true;
