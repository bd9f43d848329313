CREATE TABLE `inline_job_files` (
	`job_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`input_base64` text NOT NULL,
	`results_json` text NOT NULL
);
