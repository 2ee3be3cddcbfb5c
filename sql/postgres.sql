-- Every SQL statement src/ issues on postgres, as compiled by Kysely while test/house/sql-snapshot.solo.test.ts
-- drives the platform; values are placeholders. Generated: do not edit. Regenerate with `npm run sql:snapshot`.

-- src/audit/repository.ts insertAuditEvents
insert into "audit_events" ("id", "team_id", "mode", "occurred_at", "actor_type", "actor_id", "address", "request_id", "operation", "resource_type", "resource_id", "changes") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12);

-- src/audit/repository.ts listAuditEvents
select * from "audit_events" where "team_id" = $1 and "mode" = $2 order by "occurred_at" desc, "id" desc limit $3;

-- src/cases/repository.ts caseNotes
select * from "case_notes" where "case_id" = $1 order by "created_at", "id";

-- src/cases/repository.ts caseScans
select * from "case_scans" where "case_id" = $1 order by "scanned_at" desc, "verification_id" desc limit $2;

-- src/cases/repository.ts countByState
select "state", count(*) as "count" from "cases" where "team_id" = $1 and "mode" = $2 group by "state";

-- src/cases/repository.ts findCase
select * from "cases" where "id" = $1 and "team_id" = $2 and "mode" = $3;

-- src/cases/repository.ts findCaseForUpdate
select * from "cases" where "id" = $1 and "team_id" = $2 and "mode" = $3 for update;

-- src/cases/repository.ts insertCaseScans
insert into "case_scans" ("case_id", "scanned_at", "verification_id") values ($1, $2, $3);

-- src/cases/repository.ts insertNote
insert into "case_notes" ("id", "case_id", "author_type", "author_id", "body", "created_at") values ($1, $2, $3, $4, $5, $6);

-- src/cases/repository.ts listCases
select * from "cases" where "team_id" = $1 and "mode" = $2 order by "opened_at" desc, "id" desc limit $3;

-- src/cases/repository.ts lockUnresolved
select * from "cases" where "tag_id" in (…) and "state" <> $1 order by "id" for update;

-- src/cases/repository.ts newestCases
select "id" from "cases" where "tag_id" = $1 order by "opened_at" desc, "id" desc limit $2;

-- src/cases/repository.ts saveCases
insert into "cases" ("id", "team_id", "mode", "tag_id", "state", "opened_at", "last_seen_at", "updated_at", "scans", "signals", "signal_counts", "countries", "assignee_id", "resolution", "resolution_note", "previous_case_id", "acknowledged_at", "resolved_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) on conflict ("id") do update set "last_seen_at" = "excluded"."last_seen_at", "scans" = "excluded"."scans", "signals" = "excluded"."signals", "signal_counts" = "excluded"."signal_counts", "countries" = "excluded"."countries";

-- src/cases/repository.ts updateCase
update "cases" set "state" = $1, "acknowledged_at" = $2, "updated_at" = $3 where "id" = $4;
update "cases" set "updated_at" = $1 where "id" = $2;

-- src/db/change-feed.ts delivery
select pid from pg_stat_activity where datname = current_database() and application_name = left($1 || coalesce(current_schema(), ''), 63);

-- src/db/change-feed.ts notifyInTransaction
select pg_notify($1, $2);

-- src/db/day-counts.ts findDayCounts
select * from "flagged_counts" where "team_id" = $1 and "mode" = $2 and "day" >= $3 and "day" <= $4;
select * from "scan_counts" where "team_id" = $1 and "mode" = $2 and "day" >= $3 and "day" <= $4;
select * from "signal_counts" where "team_id" = $1 and "mode" = $2 and "day" >= $3 and "day" <= $4;

-- src/db/leases.ts claimDue
update "deliveries" set next_attempt_at = $1 where id in ( select id from "deliveries" where status = 'pending' and next_attempt_at <= $2 order by next_attempt_at limit $3 for update skip locked ) returning id;

-- src/db/settings.ts claimSetting
insert into "settings" ("name", "value") values ($1, $2) on conflict ("name") do nothing;

-- src/db/settings.ts probeDatabase
select "name" from "settings" limit $1;

-- src/db/settings.ts settingsStartingWith
select "name", "value" from "settings" where "name" like $1;

-- src/extension/catalog/repository.ts findProduct
select * from "products" where "id" = $1;

-- src/extension/catalog/repository.ts findProductIn
select * from "products" where "id" = $1 and "team_id" = $2 and "mode" = $3;

-- src/extension/catalog/repository.ts findTagLink
select * from "tag_links" where "tag_id" = $1;

-- src/extension/catalog/repository.ts findTagWorld
select "team_id", "mode" from "tags" where "id" = $1;

-- src/extension/catalog/repository.ts findToken
select * from "tokens" where "id" = $1;

-- src/extension/catalog/repository.ts findTokenIn
select * from "tokens" where "id" = $1 and "team_id" = $2 and "mode" = $3;

-- src/extension/catalog/repository.ts insertProducts
insert into "products" ("id", "team_id", "mode", "name", "image_url", "description", "created_at") values ($1, $2, $3, $4, $5, $6, $7);

-- src/extension/catalog/repository.ts insertTokens
insert into "tokens" ("id", "team_id", "mode", "chain", "name", "symbol", "supply", "contract_address", "policy_id", "asset_name", "token_number", "standard", "created_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13);

-- src/extension/catalog/repository.ts listProducts
select * from "products" where "team_id" = $1 and "mode" = $2 order by "created_at" desc, "id" desc;

-- src/extension/catalog/repository.ts listTokens
select * from "tokens" where "team_id" = $1 and "mode" = $2 order by "created_at" desc, "id" desc;

-- src/extension/catalog/repository.ts upsertTagLinks
insert into "tag_links" ("tag_id", "product_id", "token_id", "updated_at") values ($1, $2, $3, $4) on conflict ("tag_id") do update set "updated_at" = $5, "product_id" = $6;
insert into "tag_links" ("tag_id", "product_id", "token_id", "updated_at") values ($1, $2, $3, $4) on conflict ("tag_id") do update set "updated_at" = $5, "product_id" = $6, "token_id" = $7;

-- src/extension/holdings/repository.ts findHolding
select * from "holdings" where "token_id" = $1 and "address" = $2;

-- src/extension/holdings/repository.ts holderAddresses
select "address" from "holdings" where "token_id" = $1 order by "address";

-- src/extension/holdings/repository.ts holdingQuantity
select "quantity" from "holdings" where "token_id" = $1 and "address" = $2;

-- src/extension/holdings/repository.ts listHoldings
select * from "holdings" where "token_id" = $1 order by "address";

-- src/extension/holdings/repository.ts setHolding
insert into "holdings" ("token_id", "address", "quantity", "updated_at") values ($1, $2, $3, $4) on conflict ("token_id", "address") do update set "quantity" = $5, "updated_at" = $6;

-- src/extension/holdings/repository.ts unsetHolding
delete from "holdings" where "token_id" = $1 and "address" = $2;

-- src/extension/ownership-proofs/repository.ts list
select * from "ownership_proofs" where "verification_id" = $1 order by "verified_at", "request_id";

-- src/extension/repository.ts deleteExpiredChallenges
delete from "challenges" where "expires_at" < $1;

-- src/extension/repository.ts findChallenge
select * from "challenges" where "id" = $1;

-- src/extension/repository.ts findPublicVerifications
select "v"."id", "v"."mode", "v"."genuine", "v"."reason", "v"."scanned_at", "v"."country", "v"."tamper_permanent", "v"."tamper_current", "g"."session_duration", "p"."id" as "product_id", "p"."name" as "product_name", "p"."image_url" as "product_image_url", "p"."description" as "product_description", "t"."id" as "token_id", "t"."chain" as "token_chain", "t"."name" as "token_name", "t"."symbol" as "token_symbol", "t"."supply" as "token_supply", "t"."contract_address" as "token_contract_address", "t"."policy_id" as "token_policy_id", "t"."asset_name" as "token_asset_name", "t"."token_number" as "token_number", "t"."standard" as "token_standard", "o"."status" as "ownership_status", "o"."wallet_address" as "ownership_wallet_address", "o"."verified_at" as "ownership_verified_at", "o"."chain" as "ownership_chain", "o"."request_id" as "ownership_request_id" from "verifications" as "v" left join "tags" as "g" on "g"."id" = "v"."tag_id" left join "tag_links" as "l" on "l"."tag_id" = "v"."tag_id" left join "products" as "p" on "p"."id" = "l"."product_id" left join "tokens" as "t" on "t"."id" = "l"."token_id" left join "ownerships" as "o" on "o"."verification_id" = "v"."id" where "v"."id" in (…);

-- src/extension/repository.ts insertChallenge
insert into "challenges" ("id", "verification_id", "mode", "token_id", "chain", "address", "message", "issued_at", "expires_at", "used_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- src/extension/repository.ts insertClaim
insert into "claims" ("id", "verification_id", "mode", "resource_url", "resource_url_hash", "note", "created_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("verification_id", "resource_url_hash") do nothing;

-- src/extension/repository.ts listClaims
select * from "claims" where "mode" = $1 and "resource_url_hash" = $2 and "resource_url" = $3 order by "created_at" asc, "id" asc limit $4;

-- src/extension/repository.ts saveOwnership
insert into "ownership_proofs" ("verification_id", "chain", "wallet_address", "token_id", "request_id", "verified_at", "replaced_at") values ($1, $2, $3, $4, $5, $6, $7);
insert into "ownerships" ("verification_id", "status", "chain", "wallet_address", "token_id", "request_id", "verified_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("verification_id") do nothing returning "verification_id";
insert into "ownerships" ("verification_id", "status", "chain", "wallet_address", "token_id", "request_id", "verified_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("verification_id") do update set "status" = $8, "chain" = $9, "wallet_address" = $10, "token_id" = $11, "request_id" = $12, "verified_at" = $13 where "ownerships"."request_id" = $14 returning "verification_id";
update "ownership_proofs" set "replaced_at" = $1 where "request_id" = $2;

-- src/extension/repository.ts useChallenge
update "challenges" set "used_at" = $1 where "id" = $2 and "used_at" is null and "expires_at" > $3;

-- src/extension/verification-claims/repository.ts list
select *, count(*) over() as "total" from "claims" where "verification_id" = $1 order by "created_at" desc, "id" desc limit $2;

-- src/keys/repository.ts findKey
select * from "api_keys" where "id" = $1;

-- src/keys/repository.ts findKeyByHash
select * from "api_keys" where "key_hash" = $1;

-- src/keys/repository.ts findKeyInWorld
select * from "api_keys" where "id" = $1 and "team_id" = $2 and "mode" = $3;

-- src/keys/repository.ts insertKey
insert into "api_keys" ("id", "team_id", "mode", "key_hash", "role", "name", "created_at", "expires_at", "revoked_at", "replaced_by", "last_used_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);

-- src/keys/repository.ts listKeys
select "id", "team_id", "mode", "role", "name", "created_at", "expires_at", "revoked_at", "replaced_by", "last_used_at" from "api_keys" where "team_id" = $1 and "mode" = $2 order by "created_at", "id";

-- src/keys/repository.ts replaceKey
update "api_keys" set "replaced_by" = $1, "expires_at" = case when "expires_at" is null then $2 when "expires_at" > $3 then $4 else "expires_at" end where "id" = $5 and "replaced_by" is null and "revoked_at" is null and ("expires_at" is null or "expires_at" > $6);

-- src/keys/repository.ts revokeKey
update "api_keys" set "revoked_at" = $1 where "id" = $2 and "revoked_at" is null;

-- src/keys/repository.ts setKeysLastUsed
update "api_keys" set "last_used_at" = $1 where "id" = $2 and ("last_used_at" is null or "last_used_at" < $3);

-- src/mail/repository.ts caseListeners
select "user_id" from "notification_settings" where "team_id" = $1 and "case_opened" = $2 and "sandbox" = $3 order by "user_id";

-- src/master-keys/repository.ts anySealedValue
select "app_master_key_sealed" as "sealed" from "chips" where "mode" = $1 and substr("app_master_key_sealed", 1, 3) = $2 limit $3;
select "previous_secret_sealed" as "sealed" from "webhooks" where "mode" = $1 and substr("previous_secret_sealed", 1, 3) = $2 limit $3;
select "sdm_file_read_key_sealed" as "sealed" from "chips" where "mode" = $1 and substr("sdm_file_read_key_sealed", 1, 3) = $2 limit $3;
select "sdm_meta_read_key_sealed" as "sealed" from "chips" where "mode" = $1 and substr("sdm_meta_read_key_sealed", 1, 3) = $2 limit $3;
select "secret_sealed" as "sealed" from "webhooks" where "mode" = $1 and substr("secret_sealed", 1, 3) = $2 limit $3;
select "state" as "sealed" from "writer_sessions" where "mode" = $1 and substr("state", 1, 14) = $2 limit $3;

-- src/master-keys/repository.ts insertGeneration
insert into "master_generations" ("mode", "generation", "check_value", "key_ids", "created_at", "retired_at") values ($1, $2, $3, $4, $5, $6) on conflict do nothing;

-- src/master-keys/repository.ts listGenerationRows
select "generation", "check_value", "key_ids", "retired_at" from "master_generations" where "mode" = $1 order by "generation";

-- src/sessions/repository.ts findSession
select * from "sessions" where "id" = $1 and "team_id" = $2 and "mode" = $3;

-- src/sessions/repository.ts sessionVerificationIds
select "id" from "verifications" where "tag_id" = $1 and "genuine" = 1 and "scanned_at" >= $2 and "scanned_at" <= $3 and "session_id" = $4 order by "scanned_at", "id";

-- src/signals/repository.ts findThresholdRow
select "counter_gap", "country_jump_window", "replay_burst" from "signal_thresholds" where "team_id" = $1 and "mode" = $2;

-- src/signals/repository.ts upsertThresholds
insert into "signal_thresholds" ("team_id", "mode", "counter_gap", "country_jump_window", "replay_burst", "updated_at") values ($1, $2, $3, $4, $5, $6) on conflict ("team_id", "mode") do update set "replay_burst" = $7, "updated_at" = $8;

-- src/tag-chips/repository.ts chipOwner
select "tag_id", "team_id" from "chips" where "mode" = $1 and "uid" = $2 and "tag_id" != $3;

-- src/tag-chips/repository.ts findEmulatedChip
select "emulated_chips".*, "tags"."url", "tags"."team_id", "tags"."mode", "tags"."protocol", "chips"."uid", "chips"."crypto", "chips"."master_generation", "chips"."key_version", "chips"."params", "chips"."mirroring", "chips"."mac_input_from" from "emulated_chips" inner join "tags" on "tags"."id" = "emulated_chips"."tag_id" inner join "chips" on "chips"."tag_id" = "emulated_chips"."tag_id" where "emulated_chips"."tag_id" = $1;

-- src/tag-chips/repository.ts findTagChip
select "chips".*, "tags"."url" from "chips" inner join "tags" on "tags"."id" = "chips"."tag_id" where "chips"."tag_id" = $1 and "tags"."team_id" = $2 and "tags"."mode" = $3;

-- src/tag-chips/repository.ts findTagsByUrls
select "chips".*, "tags"."id" as "tag_row_id", "tags"."url", "tags"."status", "tags"."session_duration", "tags"."protocol" as "tag_protocol" from "tags" left join "chips" on "chips"."tag_id" = "tags"."id" where "tags"."team_id" = $1 and "tags"."mode" = $2 and "tags"."url" in (…);

-- src/tag-chips/repository.ts incrementEmulatedCounter
update "emulated_chips" set "counter" = "counter" + $1 where "tag_id" = $2 returning "counter";

-- src/tag-chips/repository.ts insertChips
insert into "chips" ("tag_id", "team_id", "mode", "protocol", "uid", "crypto", "mirroring", "key_source", "key_version", "sdm_meta_read_key_sealed", "sdm_file_read_key_sealed", "params", "mac_input_from", "write_generation", "master_generation", "last_counter", "session_id", "session_expires_at", "last_country", "last_genuine_at", "tamper_opened", "created_at", "pending_key_version", "pending_master_generation", "app_master_key_sealed") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25);

-- src/tag-chips/repository.ts insertEmulatedChip
insert into "emulated_chips" ("tag_id", "counter", "tamper_permanent", "tamper_current") values ($1, $2, $3, $4);

-- src/tag-chips/repository.ts lockPrepared
/* prepared: tapproof_lock_chips */ SELECT tag_id, write_generation, last_counter, session_id, session_expires_at, last_country, last_genuine_at, tamper_opened, (SELECT tags.session_duration FROM tags WHERE tags.id = chips.tag_id) AS session_duration FROM chips WHERE chips.tag_id = ANY($1::text[]) ORDER BY chips.tag_id FOR UPDATE;

-- src/tag-chips/repository.ts setEmulatedTamper
update "emulated_chips" set "tamper_permanent" = $1, "tamper_current" = $2 where "tag_id" = $3;

-- src/tags/repository.ts adjustTagCount
insert into "tag_counts" ("team_id", "mode", "tag_count") values ($1, $2, $3) on conflict ("team_id", "mode") do update set "tag_count" = tag_counts.tag_count + $4;

-- src/tags/repository.ts configureCreatedTag
update "tags" set "status" = $1, "configured_at" = $2, "updated_at" = $3 where "id" = $4 and "team_id" = $5 and "mode" = $6 and "status" = $7 returning "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at";

-- src/tags/repository.ts countFiltered
select count(*) as "n" from "tags" where "team_id" = $1 and "mode" = $2 and "status" = $3 and "url" = $4;
select count(*) as "n" from "tags" where "team_id" = $1 and "mode" = $2 and "url" >= $3 and "url" < $4 and "id" in (…);
select count(*) as "n" from "tags" where "team_id" = $1 and "mode" = $2 and ("id" = $3 or comment_folded like $4);

-- src/tags/repository.ts countTags
select "tag_count" from "tag_counts" where "team_id" = $1 and "mode" = $2;

-- src/tags/repository.ts deleteTags
delete from "tag_links" where "tag_id" in (…);
delete from "tags" where "id" in (…);

-- src/tags/repository.ts findChipTagIds
select "tag_id" from "chips" where "mode" = $1 and "uid" = $2 and "team_id" = $3;

-- src/tags/repository.ts findCounterDrift
select team_id, mode, sum(counter) as counter, sum(n) as rows from ( select team_id, mode, count(*) as n, 0 as counter from tags group by team_id, mode union all select team_id, mode, 0 as n, tag_count as counter from tag_counts ) as worlds group by team_id, mode having sum(counter) <> sum(n);

-- src/tags/repository.ts findTags
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "team_id" = $1 and "mode" = $2 and "id" in (…);

-- src/tags/repository.ts findTagsForUpdate
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "team_id" = $1 and "mode" = $2 and "id" in (…) order by "id" for update;

-- src/tags/repository.ts findUrlOwners
select "id", "url" from "tags" where "team_id" = $1 and "mode" = $2 and "url" in (…);

-- src/tags/repository.ts insertTags
insert into "tags" ("id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at", "comment_folded") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12);

-- src/tags/repository.ts listTags
select "id" from "tags" where "team_id" = $1 and "mode" = $2 and "status" = $3 and "url" = $4 order by "updated_at" desc, "id" desc limit $5 offset $6;
select "id" from "tags" where "team_id" = $1 and "mode" = $2 and "url" >= $3 and "url" < $4 and "id" in (…) order by "updated_at" desc, "id" desc limit $5 offset $6;
select "id" from "tags" where "team_id" = $1 and "mode" = $2 order by "configured_at" asc nulls first, "id" asc limit $3 offset $4;
select "id" from "tags" where "team_id" = $1 and "mode" = $2 order by "updated_at" desc, "id" desc limit $3 offset $4;
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "id" in (select "id" from "tags" where "team_id" = $1 and "mode" = $2 and "status" = $3 and "url" = $4 order by "updated_at" desc, "id" desc limit $5 offset $6) order by "updated_at" desc, "id" desc;
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "id" in (select "id" from "tags" where "team_id" = $1 and "mode" = $2 and "url" >= $3 and "url" < $4 and "id" in (…) order by "updated_at" desc, "id" desc limit $5 offset $6) order by "updated_at" desc, "id" desc;
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "id" in (select "id" from "tags" where "team_id" = $1 and "mode" = $2 order by "configured_at" asc nulls first, "id" asc limit $3 offset $4) order by "configured_at" asc nulls first, "id" asc;
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "id" in (select "id" from "tags" where "team_id" = $1 and "mode" = $2 order by "updated_at" desc, "id" desc limit $3 offset $4) order by "updated_at" desc, "id" desc;

-- src/tags/repository.ts lockTagCounters
lock table tag_counts in share row exclusive mode;

-- src/tags/repository.ts setTagCount
insert into "tag_counts" ("team_id", "mode", "tag_count") values ($1, $2, $3) on conflict ("team_id", "mode") do update set "tag_count" = $4;

-- src/tags/repository.ts tagsAfter
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at", (select "chips"."uid" from "chips" where "chips"."tag_id" = "tags"."id") as "chip_uid" from "tags" where "team_id" = $1 and "mode" = $2 order by "id" limit $3;

-- src/tags/repository.ts updateTag
update "tags" set "url" = $1, "comment" = $2, "session_duration" = $3, "updated_at" = $4, "comment_folded" = $5 where "id" = $6;

-- src/teams/repository.ts findTeam
select * from "teams" where "id" = $1;

-- src/teams/repository.ts hasAnyTeam
select "id" from "teams" limit $1;

-- src/teams/repository.ts insertTeam
insert into "teams" ("id", "name", "parent_id", "created_at") values ($1, $2, $3, $4);

-- src/users/repository.ts deleteLinks
delete from "user_links" where "user_id" = $1;

-- src/users/repository.ts deletePasskeysOf
delete from "user_passkeys" where "user_id" = $1;

-- src/users/repository.ts findLink
select * from "user_links" where "token_hash" = $1;

-- src/users/repository.ts findSession
select "s"."id", "s"."user_id", "s"."mode", "s"."csrf_token", "s"."method", "s"."last_seen_at", "s"."expires_at", "s"."revoked_at", "u"."team_id", "u"."email", "u"."role", "u"."disabled_at" from "user_sessions" as "s" inner join "users" as "u" on "u"."id" = "s"."user_id" where "s"."token_hash" = $1;

-- src/users/repository.ts findUser
select * from "users" where "id" = $1;

-- src/users/repository.ts findUserByEmail
select * from "users" where "email" = $1;

-- src/users/repository.ts findUserInTeam
select * from "users" where "id" = $1 and "team_id" = $2;

-- src/users/repository.ts insertChallenge
delete from "sign_in_challenges" where "expires_at" <= $1;
insert into "sign_in_challenges" ("id", "purpose", "user_id", "data", "expires_at") values ($1, $2, $3, $4, $5);

-- src/users/repository.ts insertLink
insert into "user_links" ("token_hash", "user_id", "purpose", "created_at", "expires_at") values ($1, $2, $3, $4, $5);

-- src/users/repository.ts insertSession
insert into "user_sessions" ("token_hash", "id", "user_id", "mode", "csrf_token", "method", "address", "created_at", "last_seen_at", "expires_at", "revoked_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);

-- src/users/repository.ts insertUser
insert into "users" ("id", "team_id", "email", "role", "password_hash", "oidc_subject", "created_at", "disabled_at", "last_sign_in_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- src/users/repository.ts listUsers
select * from "users" where "team_id" = $1 order by "team_id", "email";

-- src/users/repository.ts lockTeamUsers
select "id" from "users" where "team_id" = $1 order by "id" for update;

-- src/users/repository.ts passkeyCounts
select "user_id", count(*) as "n" from "user_passkeys" where "user_id" in (…) group by "user_id";

-- src/users/repository.ts revokeSession
update "user_sessions" set "revoked_at" = $1 where "token_hash" = $2 and "revoked_at" is null;

-- src/users/repository.ts revokeSessionsOf
update "user_sessions" set "revoked_at" = $1 where "user_id" = $2 and "revoked_at" is null;

-- src/users/repository.ts setSessionMode
update "user_sessions" set "mode" = $1 where "token_hash" = $2;

-- src/users/repository.ts updateUser
update "users" set "last_sign_in_at" = $1 where "id" = $2;
update "users" set "password_hash" = $1 where "id" = $2;
update "users" set "role" = $1 where "id" = $2;

-- src/users/throttle-repository.ts deleteFailure
delete from "sign_in_failures" where "subject" = $1 and "failed_at" = $2;

-- src/users/throttle-repository.ts failuresSince
select count(*) as "n", min("failed_at") as "oldest", max("failed_at") as "newest" from "sign_in_failures" where "subject" = $1 and "failed_at" >= $2;

-- src/users/throttle-repository.ts insertFailure
insert into "sign_in_failures" ("subject", "failed_at") values ($1, $2);

-- src/users/throttle-repository.ts lockSubjects
select pg_advisory_xact_lock(hashtextextended($1, 0));

-- src/users/throttle-repository.ts pruneFailures
delete from "sign_in_failures" where "failed_at" < $1;

-- src/verifications/flag-windows-repository.ts lockWindows
select * from "flag_windows" where "tag_id" in (…) order by "tag_id", "signal" for update;

-- src/verifications/flag-windows-repository.ts saveWindows
insert into "flag_windows" ("tag_id", "signal", "team_id", "mode", "opened_at", "held", "last_held_id") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("tag_id", "signal") do update set "opened_at" = $8, "held" = $9, "last_held_id" = $10;

-- src/verifications/repository.ts findGenuineByUrlHashes
select * from "verifications" where "tag_id" in (…) and "genuine" = 1 and "scanned_at" >= $1 and "url_hash" in (…) order by "scanned_at";

-- src/verifications/repository.ts findVerification
select * from "verifications" where "id" = $1 and "team_id" = $2 and "mode" = $3;

-- src/verifications/repository.ts findVerifications
select * from "verifications" where "id" in (…) and "team_id" = $1 and "mode" = $2;

-- src/verifications/repository.ts listVerifications
select * from "verifications" where "tag_id" = $1 and "team_id" = $2 and "mode" = $3 and "reason" = $4 and (scanned_at, id) < ($5, $6) order by "scanned_at" desc, "id" desc limit $7;
select * from "verifications" where "tag_id" = $1 and "team_id" = $2 and "mode" = $3 and "reason" = $4 order by "scanned_at" desc, "id" desc limit $5;
select * from "verifications" where "team_id" = $1 and "mode" = $2 and "reason" = $3 and (scanned_at, id) < ($4, $5) order by "scanned_at" desc, "id" desc limit $6;
select * from "verifications" where "team_id" = $1 and "mode" = $2 and "reason" = $3 order by "scanned_at" desc, "id" desc limit $4;
select * from "verifications" where "team_id" = $1 and "mode" = $2 order by "scanned_at" desc, "id" desc limit $3;
select * from (select * from "verifications" where "team_id" = $1 and "mode" = $2 and "reason" = $3 and (scanned_at, id) < ($4, $5) order by "scanned_at" desc, "id" desc limit $6) as "v" union all select * from (select * from "verifications" where "team_id" = $7 and "mode" = $8 and "reason" = $9 and (scanned_at, id) < ($10, $11) order by "scanned_at" desc, "id" desc limit $12) as "v" union all select * from (select * from "verifications" where "team_id" = $13 and "mode" = $14 and "reason" = $15 and (scanned_at, id) < ($16, $17) order by "scanned_at" desc, "id" desc limit $18) as "v" union all select * from (select * from "verifications" where "team_id" = $19 and "mode" = $20 and "reason" = $21 and (scanned_at, id) < ($22, $23) order by "scanned_at" desc, "id" desc limit $24) as "v" order by "scanned_at" desc, "id" desc limit $25;
select * from (select * from "verifications" where "team_id" = $1 and "mode" = $2 and "reason" = $3 order by "scanned_at" desc, "id" desc limit $4) as "v" union all select * from (select * from "verifications" where "team_id" = $5 and "mode" = $6 and "reason" = $7 order by "scanned_at" desc, "id" desc limit $8) as "v" union all select * from (select * from "verifications" where "team_id" = $9 and "mode" = $10 and "reason" = $11 order by "scanned_at" desc, "id" desc limit $12) as "v" union all select * from (select * from "verifications" where "team_id" = $13 and "mode" = $14 and "reason" = $15 order by "scanned_at" desc, "id" desc limit $16) as "v" order by "scanned_at" desc, "id" desc limit $17;

-- src/verifications/repository.ts refusedTimes
select "scanned_at" from "verifications" where "tag_id" = $1 and "scanned_at" > $2 and "genuine" = 0 order by "scanned_at" desc limit $3;

-- src/verifications/repository.ts writeOutcomesPrepared
/* prepared: tapproof_scan_outcomes_flagged */ WITH progress AS ( UPDATE chips SET last_counter = p.last_counter, session_id = p.session_id, session_expires_at = p.session_expires_at, last_country = p.last_country, last_genuine_at = p.last_genuine_at, tamper_opened = p.tamper_opened FROM unnest($1::text[], $2::integer[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::integer[], $8::integer[], $9::integer[], $10::text[], $11::bigint[], $12::integer[]) AS p("tag_id", "last_counter", "session_id", "session_expires_at", "last_country", "last_genuine_at", "tamper_opened", "was_generation", "was_counter", "was_session_id", "was_session_expires_at", "was_session_duration") WHERE chips.tag_id = p.tag_id AND chips.write_generation = p.was_generation AND chips.last_counter IS NOT DISTINCT FROM p.was_counter AND chips.session_id IS NOT DISTINCT FROM p.was_session_id AND chips.session_expires_at IS NOT DISTINCT FROM p.was_session_expires_at AND (SELECT tags.session_duration FROM tags WHERE tags.id = chips.tag_id) = p.was_session_duration RETURNING chips.tag_id ), opened AS ( INSERT INTO sessions ("id", "team_id", "mode", "tag_id", "opened_at", "expires_at") SELECT * FROM unnest($13::text[], $14::text[], $15::text[], $16::text[], $17::bigint[], $18::bigint[]) ), counted AS ( INSERT INTO scan_counts ("team_id", "mode", "day", "reason", "country", "count") SELECT * FROM unnest($19::text[], $20::text[], $21::text[], $22::text[], $23::text[], $24::bigint[]) ON CONFLICT (team_id, mode, day, reason, country) DO UPDATE SET count = scan_counts.count + excluded.count ), signalled AS ( INSERT INTO signal_counts ("team_id", "mode", "day", "signal", "count") SELECT * FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::bigint[]) ON CONFLICT (team_id, mode, day, signal) DO UPDATE SET count = signal_counts.count + excluded.count ), flagged AS ( INSERT INTO flagged_counts ("team_id", "mode", "day", "country", "count") SELECT * FROM unnest($30::text[], $31::text[], $32::text[], $33::text[], $34::bigint[]) ON CONFLICT (team_id, mode, day, country) DO UPDATE SET count = flagged_counts.count + excluded.count ) INSERT INTO verifications ("id", "team_id", "mode", "tag_id", "genuine", "reason", "read_counter", "tamper_permanent", "tamper_current", "session_id", "scanned_at", "url_hash", "client_ip", "country", "write_generation", "signals") SELECT * FROM unnest($35::text[], $36::text[], $37::text[], $38::text[], $39::integer[], $40::text[], $41::integer[], $42::text[], $43::text[], $44::text[], $45::bigint[], $46::text[], $47::text[], $48::text[], $49::integer[], $50::text[]) WHERE tapproof_chips_unchanged((SELECT count(*) FROM progress), $51::integer);
/* prepared: tapproof_scan_outcomes_guarded */ WITH progress AS ( UPDATE chips SET last_counter = p.last_counter, session_id = p.session_id, session_expires_at = p.session_expires_at, last_country = p.last_country, last_genuine_at = p.last_genuine_at, tamper_opened = p.tamper_opened FROM unnest($1::text[], $2::integer[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::integer[], $8::integer[], $9::integer[], $10::text[], $11::bigint[], $12::integer[]) AS p("tag_id", "last_counter", "session_id", "session_expires_at", "last_country", "last_genuine_at", "tamper_opened", "was_generation", "was_counter", "was_session_id", "was_session_expires_at", "was_session_duration") WHERE chips.tag_id = p.tag_id AND chips.write_generation = p.was_generation AND chips.last_counter IS NOT DISTINCT FROM p.was_counter AND chips.session_id IS NOT DISTINCT FROM p.was_session_id AND chips.session_expires_at IS NOT DISTINCT FROM p.was_session_expires_at AND (SELECT tags.session_duration FROM tags WHERE tags.id = chips.tag_id) = p.was_session_duration RETURNING chips.tag_id ), opened AS ( INSERT INTO sessions ("id", "team_id", "mode", "tag_id", "opened_at", "expires_at") SELECT * FROM unnest($13::text[], $14::text[], $15::text[], $16::text[], $17::bigint[], $18::bigint[]) ), counted AS ( INSERT INTO scan_counts ("team_id", "mode", "day", "reason", "country", "count") SELECT * FROM unnest($19::text[], $20::text[], $21::text[], $22::text[], $23::text[], $24::bigint[]) ON CONFLICT (team_id, mode, day, reason, country) DO UPDATE SET count = scan_counts.count + excluded.count ) INSERT INTO verifications ("id", "team_id", "mode", "tag_id", "genuine", "reason", "read_counter", "tamper_permanent", "tamper_current", "session_id", "scanned_at", "url_hash", "client_ip", "country", "write_generation") SELECT * FROM unnest($25::text[], $26::text[], $27::text[], $28::text[], $29::integer[], $30::text[], $31::integer[], $32::text[], $33::text[], $34::text[], $35::bigint[], $36::text[], $37::text[], $38::text[], $39::integer[]) WHERE tapproof_chips_unchanged((SELECT count(*) FROM progress), $40::integer);

-- src/webhooks/repository.ts attemptsOf
select * from "delivery_attempts" where "delivery_id" in (…) order by "delivery_id", "attempt";

-- src/webhooks/repository.ts cancelPending
update "deliveries" set "status" = $1 where "webhook_id" = $2 and "status" = $3;

-- src/webhooks/repository.ts claimDue
select "d"."id", "d"."attempts", "d"."earlier_attempts", "d"."event_id", "e"."payload", "d"."webhook_id", "w"."mode", "w"."url", "w"."enabled", "w"."secret_sealed", "w"."previous_secret_sealed", "w"."previous_secret_until" from "deliveries" as "d" inner join "events" as "e" on "e"."id" = "d"."event_id" left join "webhooks" as "w" on "w"."id" = "d"."webhook_id" where "d"."id" in (…);

-- src/webhooks/repository.ts clearFailing
update "webhooks" set "failing_since" = $1 where "id" = $2;

-- src/webhooks/repository.ts countPendingDeliveries
select count(*) as "n" from "deliveries" where "status" = $1;

-- src/webhooks/repository.ts deleteWebhook
delete from "webhooks" where "id" = $1;

-- src/webhooks/repository.ts enabledWebhooks
select "id", "events" from "webhooks" where "team_id" = $1 and "mode" = $2 and "enabled" = $3;

-- src/webhooks/repository.ts findDelivery
select "d"."id", "d"."event_id", "d"."webhook_id", "d"."status", "d"."attempts", "d"."earlier_attempts", "d"."next_attempt_at", "d"."created_at", "e"."type", "e"."tag_id" from "deliveries" as "d" left join "events" as "e" on "e"."id" = "d"."event_id" where "d"."webhook_id" = $1 and "d"."event_id" = $2;

-- src/webhooks/repository.ts findWebhook
select * from "webhooks" where "id" = $1 and "team_id" = $2 and "mode" = $3;

-- src/webhooks/repository.ts findWebhookById
select * from "webhooks" where "id" = $1;

-- src/webhooks/repository.ts insertAttempts
insert into "delivery_attempts" ("delivery_id", "webhook_id", "event_id", "attempt", "started_at", "duration_ms", "status_code", "error", "response_excerpt") values ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- src/webhooks/repository.ts insertDeliveries
insert into "deliveries" ("event_id", "webhook_id", "status", "attempts", "next_attempt_at", "created_at") values ($1, $2, $3, $4, $5, $6);

-- src/webhooks/repository.ts insertEvents
insert into "events" ("id", "team_id", "mode", "type", "tag_id", "payload", "created_at") values ($1, $2, $3, $4, $5, $6, $7);

-- src/webhooks/repository.ts insertWebhook
insert into "webhooks" ("id", "team_id", "mode", "url", "events", "enabled", "disabled_reason", "secret_sealed", "previous_secret_sealed", "previous_secret_until", "failing_since", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13);

-- src/webhooks/repository.ts listAttempts
select * from "delivery_attempts" where "webhook_id" = $1 order by "id" desc limit $2;

-- src/webhooks/repository.ts listDeliveries
select "d"."id", "d"."event_id", "d"."webhook_id", "d"."status", "d"."attempts", "d"."earlier_attempts", "d"."next_attempt_at", "d"."created_at", "e"."type", "e"."tag_id" from "deliveries" as "d" left join "events" as "e" on "e"."id" = "d"."event_id" where "d"."webhook_id" = $1 order by "d"."id" desc limit $2;

-- src/webhooks/repository.ts listWebhooks
select * from "webhooks" where "team_id" = $1 and "mode" = $2 order by "created_at" desc, "id" desc;

-- src/webhooks/repository.ts markDelivered
update "deliveries" set "status" = $1, "attempts" = attempts + 1 where "id" in (…);

-- src/webhooks/repository.ts markFailed
update "deliveries" set "next_attempt_at" = $1, "attempts" = attempts + 1 where "id" = $2 and "status" = $3;

-- src/webhooks/repository.ts noteFailing
update "webhooks" set "failing_since" = coalesce(failing_since, $1) where "id" = $2 returning "failing_since";

-- src/webhooks/repository.ts requeue
update "deliveries" set "status" = $1, "earlier_attempts" = earlier_attempts + attempts, "attempts" = $2, "next_attempt_at" = $3 where "event_id" = $4 and "webhook_id" in (select "webhooks"."id" from "webhooks" where "webhooks"."enabled" = $5) and "webhook_id" = $6;
update "deliveries" set "status" = $1, "earlier_attempts" = earlier_attempts + attempts, "attempts" = $2, "next_attempt_at" = $3 where "webhook_id" = $4 and "created_at" >= $5 and "status" != $6;

-- src/webhooks/repository.ts updateWebhook
update "webhooks" set "updated_at" = $1, "enabled" = $2 where "id" = $3;

-- src/writer/repository.ts findTagWithStaleWrite
select "tags"."id", "tags"."protocol", "tags"."url", "tags"."status", "writer_sessions"."id" as "stale_id", "writer_sessions"."round_trips" as "stale_round_trips", "writer_sessions"."operation" as "stale_operation" from "tags" left join "writer_sessions" on "writer_sessions"."tag_id" = "tags"."id" and "writer_sessions"."result" is null and "writer_sessions"."expires_at" <= $1 where "tags"."id" = $2 and "tags"."team_id" = $3 and "tags"."mode" = $4;

-- src/writer/repository.ts findWrite
select "writer_sessions".* from "writer_sessions" where "writer_sessions"."id" = $1 and "writer_sessions"."team_id" = $2 and "writer_sessions"."mode" = $3;

-- src/writer/repository.ts findWriteWithTag
select "writer_sessions".*, "tags"."protocol" as "tag_protocol", "tags"."url" as "tag_url" from "writer_sessions" left join "tags" on "tags"."id" = "writer_sessions"."tag_id" and "tags"."team_id" = "writer_sessions"."team_id" and "tags"."mode" = "writer_sessions"."mode" where "writer_sessions"."id" = $1 and "writer_sessions"."team_id" = $2 and "writer_sessions"."mode" = $3;

-- src/writer/repository.ts insertWrite
insert into "writer_sessions" ("id", "team_id", "mode", "tag_id", "step", "state", "round_trips", "expires_at", "operation", "result", "reason", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13);

-- src/writer/repository.ts listTagWrites
select * from "writer_sessions" where "tag_id" = $1 and "team_id" = $2 and "mode" = $3 order by "created_at" desc, "id" desc limit $4;

-- src/writer/repository.ts updateRunningWrite
update "writer_sessions" set "round_trips" = $1, "step" = $2, "state" = $3, "expires_at" = $4, "updated_at" = $5 where "id" = $6 and "round_trips" = $7 and "result" is null;
update "writer_sessions" set "step" = $1, "state" = $2, "result" = $3, "reason" = $4, "round_trips" = $5, "updated_at" = $6 where "id" = $7 and "round_trips" = $8 and "result" is null;
update "writer_sessions" set "step" = $1, "state" = $2, "result" = $3, "round_trips" = $4, "updated_at" = $5 where "id" = $6 and "round_trips" = $7 and "result" is null;

-- Functions of src/ that build statements the flows of test/house/sql-snapshot.solo.test.ts did not run:
--   src/cases/digest-repository.ts caseDigest
--   src/cases/repository.ts filtered
--   src/db/day-counts.ts addDayCounts
--   src/db/settings.ts deleteSetting
--   src/db/settings.ts insertSetting
--   src/extension/repository.ts publicVerifications
--   src/extension/repository.ts unuseChallenge
--   src/keys/repository.ts liveKeyModes
--   src/mail/repository.ts claimDue
--   src/mail/repository.ts countsByStatus
--   src/mail/repository.ts digestReaders
--   src/mail/repository.ts latestFailed
--   src/mail/repository.ts queueMails
--   src/mail/repository.ts recordOutcome
--   src/mail/repository.ts saveSettings
--   src/mail/repository.ts settingsOf
--   src/master-keys/repository.ts chipsPerGeneration
--   src/master-keys/repository.ts resealIfUnchanged
--   src/master-keys/repository.ts setKeyIds
--   src/master-keys/repository.ts setRetired
--   src/master-keys/repository.ts staleSealedRows
--   src/sessions/repository.ts insertSessions
--   src/sessions/repository.ts sessionVerifications
--   src/tag-chips/repository.ts commitPendingKeys
--   src/tag-chips/repository.ts lockChips
--   src/tag-chips/repository.ts recordPendingKeys
--   src/tag-chips/repository.ts saveChipProgress
--   src/tags/repository.ts chipTags
--   src/tags/repository.ts filtered
--   src/tags/repository.ts worldTags
--   src/teams/repository.ts listTeamIds
--   src/teams/repository.ts listTeams
--   src/users/repository.ts findPasskey
--   src/users/repository.ts findUserBySubject
--   src/users/repository.ts insertPasskey
--   src/users/repository.ts passkeysOf
--   src/users/repository.ts spendChallenge
--   src/users/repository.ts touchSession
--   src/users/repository.ts usePasskey
--   src/verifications/flag-windows-repository.ts clearHeld
--   src/verifications/flag-windows-repository.ts dueWindows
--   src/verifications/repository.ts caseWalk
--   src/verifications/repository.ts genuineByUrlHashes
--   src/verifications/repository.ts insertVerifications
--   src/verifications/repository.ts outcomeStatement
--   src/verifications/repository.ts previousGenuine
--   src/verifications/repository.ts scanConditions
--   src/verifications/repository.ts unnested
--   src/verifications/repository.ts walk
--   src/verifications/repository.ts worldVerifications
--   src/verifications/retention-repository.ts countPrunable
--   src/verifications/retention-repository.ts deleteScans
--   src/verifications/retention-repository.ts deleteUnwantedSessions
--   src/verifications/retention-repository.ts prunable
--   src/verifications/retention-repository.ts referenced
--   src/verifications/retention-repository.ts wanted
--   src/webhooks/repository.ts deliveries
--   src/webhooks/repository.ts findEventWorld
--   src/webhooks/repository.ts findEvents
--   src/webhooks/repository.ts markCanceled
--   src/writer/repository.ts setWriteEnd
--   src/writer/repository.ts worldWrite
