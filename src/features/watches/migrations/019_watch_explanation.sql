-- Why a watch's alert moved (issue 30): written once the alert is out, shown under its figures.
-- Cleared by each evaluation that posts or edits the alert; set only for the period it explains.
ALTER TABLE watches ADD COLUMN explanation jsonb;
