-- api_answers.fetched_at was never written (024's comment described a design not built). A row
-- is being asked while its body is NULL (by asked_by, its claim renewed in asked_at while the
-- request lasts) and answered once its body is there, asked_at then being when the API was asked.
ALTER TABLE api_answers DROP COLUMN fetched_at;
