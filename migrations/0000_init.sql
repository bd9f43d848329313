CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`user_id` text,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_idx` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `dataset_files` (
	`id` text PRIMARY KEY NOT NULL,
	`dataset_version_id` text NOT NULL,
	`org_id` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`bytes` integer NOT NULL,
	`checksum_sha256` text,
	`object_key` text NOT NULL,
	`status` text NOT NULL,
	`error_message` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`dataset_version_id`) REFERENCES `dataset_versions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `dataset_files_version_idx` ON `dataset_files` (`dataset_version_id`);--> statement-breakpoint
CREATE TABLE `dataset_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`dataset_id` text NOT NULL,
	`org_id` text NOT NULL,
	`version` integer NOT NULL,
	`status` text NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`source_filename` text,
	`content_type` text,
	`format` text,
	`size_bytes` integer,
	`row_count` integer,
	`column_count` integer,
	`columns_json` text,
	`frame_key` text,
	`ids_generated` integer,
	`error_message` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`dataset_id`) REFERENCES `datasets`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dataset_versions_number_idx` ON `dataset_versions` (`dataset_id`,`version`);--> statement-breakpoint
CREATE INDEX `dataset_versions_org_idx` ON `dataset_versions` (`org_id`);--> statement-breakpoint
CREATE TABLE `datasets` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`last_version_number` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `datasets_org_created_idx` ON `datasets` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`org_id` text NOT NULL,
	`key` text NOT NULL,
	`route` text NOT NULL,
	`status_code` integer NOT NULL,
	`response_json` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `idempotency_keys_pk` ON `idempotency_keys` (`org_id`,`route`,`key`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	`principal_type` text,
	`user_id` text,
	`api_key_id` text,
	`actor_name` text,
	`model_type` text,
	`model_id` text,
	`model_version_id` text,
	`dataset_id` text,
	`dataset_version_id` text,
	`dataset_name` text,
	`input_filename` text,
	`parent_job_id` text,
	`retry_of_job_id` text,
	`input_json` text,
	`output_json` text,
	`error_message` text,
	`service_runtime_version` text,
	`credits_consumed` real,
	`progress` real,
	`current_step` integer,
	`total_steps` integer,
	`current_phase` text,
	`metrics_history_json` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `jobs_org_created_idx` ON `jobs` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_dataset_version_idx` ON `jobs` (`dataset_version_id`);--> statement-breakpoint
CREATE TABLE `model_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`model_id` text NOT NULL,
	`org_id` text NOT NULL,
	`version` integer NOT NULL,
	`status` text NOT NULL,
	`dataset_id` text NOT NULL,
	`dataset_version_id` text NOT NULL,
	`config_json` text DEFAULT '{}' NOT NULL,
	`metrics_json` text,
	`artifact_key` text,
	`error_message` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`model_id`) REFERENCES `models`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `model_versions_number_idx` ON `model_versions` (`model_id`,`version`);--> statement-breakpoint
CREATE INDEX `model_versions_dataset_idx` ON `model_versions` (`dataset_id`);--> statement-breakpoint
CREATE TABLE `models` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`model_type` text NOT NULL,
	`label_column` text,
	`last_version_number` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `models_org_created_idx` ON `models` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`display_name` text NOT NULL,
	`email` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
