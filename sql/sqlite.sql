-- Every SQL statement src/ issues on sqlite, as compiled by Kysely while test/house/sql-snapshot.solo.test.ts
-- drives the platform; values are placeholders. Generated: do not edit. Regenerate with `npm run sql:snapshot`.

-- src/audit/repository.ts insertAuditEvents
insert into "audit_events" ("id", "team_id", "mode", "occurred_at", "actor_type", "actor_id", "address", "request_id", "operation", "resource_type", "resource_id", "changes") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/audit/repository.ts listAuditEvents
select * from "audit_events" where "team_id" = ? and "mode" = ? order by "occurred_at" desc, "id" desc limit ?;

-- src/cases/repository.ts caseNotes
select * from "case_notes" where "case_id" = ? order by "created_at", "id";

-- src/cases/repository.ts caseScans
select * from "case_scans" where "case_id" = ? order by "scanned_at" desc, "verification_id" desc limit ?;

-- src/cases/repository.ts countByState
select "state", count(*) as "count" from "cases" where "team_id" = ? and "mode" = ? group by "state";

-- src/cases/repository.ts findCase
select * from "cases" where "id" = ? and "team_id" = ? and "mode" = ?;

-- src/cases/repository.ts findCaseForUpdate
select * from "cases" where "id" = ? and "team_id" = ? and "mode" = ?;

-- src/cases/repository.ts insertCaseScans
insert into "case_scans" ("case_id", "scanned_at", "verification_id") values (?, ?, ?);

-- src/cases/repository.ts insertNote
insert into "case_notes" ("id", "case_id", "author_type", "author_id", "body", "created_at") values (?, ?, ?, ?, ?, ?);

-- src/cases/repository.ts listCases
select * from "cases" where "team_id" = ? and "mode" = ? order by "opened_at" desc, "id" desc limit ?;

-- src/cases/repository.ts lockUnresolved
select * from "cases" where "tag_id" in (…) and "state" <> ? order by "id";

-- src/cases/repository.ts newestCases
select "id" from "cases" where "tag_id" = ? order by "opened_at" desc, "id" desc limit ?;

-- src/cases/repository.ts saveCases
insert into "cases" ("id", "team_id", "mode", "tag_id", "state", "opened_at", "last_seen_at", "updated_at", "scans", "signals", "signal_counts", "countries", "assignee_id", "resolution", "resolution_note", "previous_case_id", "acknowledged_at", "resolved_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("id") do update set "last_seen_at" = "excluded"."last_seen_at", "scans" = "excluded"."scans", "signals" = "excluded"."signals", "signal_counts" = "excluded"."signal_counts", "countries" = "excluded"."countries";

-- src/cases/repository.ts updateCase
update "cases" set "state" = ?, "acknowledged_at" = ?, "updated_at" = ? where "id" = ?;
update "cases" set "updated_at" = ? where "id" = ?;

-- src/db/day-counts.ts addDayCounts
insert into "flagged_counts" ("team_id", "mode", "day", "country", "count") values (?, ?, ?, ?, ?) on conflict ("team_id", "mode", "day", "country") do update set "count" = "flagged_counts".count + excluded.count;
insert into "scan_counts" ("team_id", "mode", "day", "reason", "country", "count") values (?, ?, ?, ?, ?, ?) on conflict ("team_id", "mode", "day", "reason", "country") do update set "count" = "scan_counts".count + excluded.count;
insert into "signal_counts" ("team_id", "mode", "day", "signal", "count") values (?, ?, ?, ?, ?) on conflict ("team_id", "mode", "day", "signal") do update set "count" = "signal_counts".count + excluded.count;

-- src/db/day-counts.ts findDayCounts
select * from "flagged_counts" where "team_id" = ? and "mode" = ? and "day" >= ? and "day" <= ?;
select * from "scan_counts" where "team_id" = ? and "mode" = ? and "day" >= ? and "day" <= ?;
select * from "signal_counts" where "team_id" = ? and "mode" = ? and "day" >= ? and "day" <= ?;

-- src/db/leases.ts claimDue
select id from "deliveries" where status = 'pending' and next_attempt_at <= ? order by next_attempt_at limit ?;
update "deliveries" set next_attempt_at = ? where id in (…) and status = 'pending' and next_attempt_at <= ? returning id;

-- src/db/settings.ts claimSetting
insert into "settings" ("name", "value") values (?, ?) on conflict ("name") do nothing;

-- src/db/settings.ts probeDatabase
select "name" from "settings" limit ?;

-- src/db/settings.ts settingsStartingWith
select "name", "value" from "settings" where "name" like ?;

-- src/extension/catalog/repository.ts findProduct
select * from "products" where "id" = ?;

-- src/extension/catalog/repository.ts findProductIn
select * from "products" where "id" = ? and "team_id" = ? and "mode" = ?;

-- src/extension/catalog/repository.ts findTagLink
select * from "tag_links" where "tag_id" = ?;

-- src/extension/catalog/repository.ts findTagWorld
select "team_id", "mode" from "tags" where "id" = ?;

-- src/extension/catalog/repository.ts findToken
select * from "tokens" where "id" = ?;

-- src/extension/catalog/repository.ts findTokenIn
select * from "tokens" where "id" = ? and "team_id" = ? and "mode" = ?;

-- src/extension/catalog/repository.ts insertProducts
insert into "products" ("id", "team_id", "mode", "name", "image_url", "description", "created_at") values (?, ?, ?, ?, ?, ?, ?);

-- src/extension/catalog/repository.ts insertTokens
insert into "tokens" ("id", "team_id", "mode", "chain", "name", "symbol", "supply", "contract_address", "policy_id", "asset_name", "token_number", "standard", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/extension/catalog/repository.ts listProducts
select * from "products" where "team_id" = ? and "mode" = ? order by "created_at" desc, "id" desc;

-- src/extension/catalog/repository.ts listTokens
select * from "tokens" where "team_id" = ? and "mode" = ? order by "created_at" desc, "id" desc;

-- src/extension/catalog/repository.ts upsertTagLinks
insert into "tag_links" ("tag_id", "product_id", "token_id", "updated_at") values (?, ?, ?, ?) on conflict ("tag_id") do update set "updated_at" = ?, "product_id" = ?;
insert into "tag_links" ("tag_id", "product_id", "token_id", "updated_at") values (?, ?, ?, ?) on conflict ("tag_id") do update set "updated_at" = ?, "product_id" = ?, "token_id" = ?;

-- src/extension/holdings/repository.ts findHolding
select * from "holdings" where "token_id" = ? and "address" = ?;

-- src/extension/holdings/repository.ts holderAddresses
select "address" from "holdings" where "token_id" = ? order by "address";

-- src/extension/holdings/repository.ts holdingQuantity
select "quantity" from "holdings" where "token_id" = ? and "address" = ?;

-- src/extension/holdings/repository.ts listHoldings
select * from "holdings" where "token_id" = ? order by "address";

-- src/extension/holdings/repository.ts setHolding
insert into "holdings" ("token_id", "address", "quantity", "updated_at") values (?, ?, ?, ?) on conflict ("token_id", "address") do update set "quantity" = ?, "updated_at" = ?;

-- src/extension/holdings/repository.ts unsetHolding
delete from "holdings" where "token_id" = ? and "address" = ?;

-- src/extension/ownership-proofs/repository.ts list
select * from "ownership_proofs" where "verification_id" = ? order by "verified_at", "request_id";

-- src/extension/repository.ts deleteExpiredChallenges
delete from "challenges" where "expires_at" < ?;

-- src/extension/repository.ts findChallenge
select * from "challenges" where "id" = ?;

-- src/extension/repository.ts findPublicVerifications
select "v"."id", "v"."mode", "v"."genuine", "v"."reason", "v"."scanned_at", "v"."country", "v"."tamper_permanent", "v"."tamper_current", "g"."session_duration", "p"."id" as "product_id", "p"."name" as "product_name", "p"."image_url" as "product_image_url", "p"."description" as "product_description", "t"."id" as "token_id", "t"."chain" as "token_chain", "t"."name" as "token_name", "t"."symbol" as "token_symbol", "t"."supply" as "token_supply", "t"."contract_address" as "token_contract_address", "t"."policy_id" as "token_policy_id", "t"."asset_name" as "token_asset_name", "t"."token_number" as "token_number", "t"."standard" as "token_standard", "o"."status" as "ownership_status", "o"."wallet_address" as "ownership_wallet_address", "o"."verified_at" as "ownership_verified_at", "o"."chain" as "ownership_chain", "o"."request_id" as "ownership_request_id" from "verifications" as "v" left join "tags" as "g" on "g"."id" = "v"."tag_id" left join "tag_links" as "l" on "l"."tag_id" = "v"."tag_id" left join "products" as "p" on "p"."id" = "l"."product_id" left join "tokens" as "t" on "t"."id" = "l"."token_id" left join "ownerships" as "o" on "o"."verification_id" = "v"."id" where "v"."id" in (…);

-- src/extension/repository.ts insertChallenge
insert into "challenges" ("id", "verification_id", "mode", "token_id", "chain", "address", "message", "issued_at", "expires_at", "used_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/extension/repository.ts insertClaim
insert into "claims" ("id", "verification_id", "mode", "resource_url", "resource_url_hash", "note", "created_at") values (?, ?, ?, ?, ?, ?, ?) on conflict ("verification_id", "resource_url_hash") do nothing;

-- src/extension/repository.ts listClaims
select * from "claims" where "mode" = ? and "resource_url_hash" = ? and "resource_url" = ? order by "created_at" asc, "id" asc limit ?;

-- src/extension/repository.ts saveOwnership
insert into "ownership_proofs" ("verification_id", "chain", "wallet_address", "token_id", "request_id", "verified_at", "replaced_at") values (?, ?, ?, ?, ?, ?, ?);
insert into "ownerships" ("verification_id", "status", "chain", "wallet_address", "token_id", "request_id", "verified_at") values (?, ?, ?, ?, ?, ?, ?) on conflict ("verification_id") do nothing returning "verification_id";
insert into "ownerships" ("verification_id", "status", "chain", "wallet_address", "token_id", "request_id", "verified_at") values (?, ?, ?, ?, ?, ?, ?) on conflict ("verification_id") do update set "status" = ?, "chain" = ?, "wallet_address" = ?, "token_id" = ?, "request_id" = ?, "verified_at" = ? where "ownerships"."request_id" = ? returning "verification_id";
update "ownership_proofs" set "replaced_at" = ? where "request_id" = ?;

-- src/extension/repository.ts useChallenge
update "challenges" set "used_at" = ? where "id" = ? and "used_at" is null and "expires_at" > ?;

-- src/extension/verification-claims/repository.ts list
select *, count(*) over() as "total" from "claims" where "verification_id" = ? order by "created_at" desc, "id" desc limit ?;

-- src/keys/repository.ts findKey
select * from "api_keys" where "id" = ?;

-- src/keys/repository.ts findKeyByHash
select * from "api_keys" where "key_hash" = ?;

-- src/keys/repository.ts findKeyInWorld
select * from "api_keys" where "id" = ? and "team_id" = ? and "mode" = ?;

-- src/keys/repository.ts insertKey
insert into "api_keys" ("id", "team_id", "mode", "key_hash", "role", "name", "created_at", "expires_at", "revoked_at", "replaced_by", "last_used_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/keys/repository.ts listKeys
select "id", "team_id", "mode", "role", "name", "created_at", "expires_at", "revoked_at", "replaced_by", "last_used_at" from "api_keys" where "team_id" = ? and "mode" = ? order by "created_at", "id";

-- src/keys/repository.ts replaceKey
update "api_keys" set "replaced_by" = ?, "expires_at" = case when "expires_at" is null then ? when "expires_at" > ? then ? else "expires_at" end where "id" = ? and "replaced_by" is null and "revoked_at" is null and ("expires_at" is null or "expires_at" > ?);

-- src/keys/repository.ts revokeKey
update "api_keys" set "revoked_at" = ? where "id" = ? and "revoked_at" is null;

-- src/keys/repository.ts setKeysLastUsed
update "api_keys" set "last_used_at" = ? where "id" = ? and ("last_used_at" is null or "last_used_at" < ?);

-- src/mail/repository.ts caseListeners
select "user_id" from "notification_settings" where "team_id" = ? and "case_opened" = ? and "sandbox" = ? order by "user_id";

-- src/master-keys/repository.ts anySealedValue
select "app_master_key_sealed" as "sealed" from "chips" where "mode" = ? and substr("app_master_key_sealed", 1, 3) = ? limit ?;
select "previous_secret_sealed" as "sealed" from "webhooks" where "mode" = ? and substr("previous_secret_sealed", 1, 3) = ? limit ?;
select "sdm_file_read_key_sealed" as "sealed" from "chips" where "mode" = ? and substr("sdm_file_read_key_sealed", 1, 3) = ? limit ?;
select "sdm_meta_read_key_sealed" as "sealed" from "chips" where "mode" = ? and substr("sdm_meta_read_key_sealed", 1, 3) = ? limit ?;
select "secret_sealed" as "sealed" from "webhooks" where "mode" = ? and substr("secret_sealed", 1, 3) = ? limit ?;
select "state" as "sealed" from "writer_sessions" where "mode" = ? and substr("state", 1, 14) = ? limit ?;

-- src/master-keys/repository.ts insertGeneration
insert into "master_generations" ("mode", "generation", "check_value", "key_ids", "created_at", "retired_at") values (?, ?, ?, ?, ?, ?) on conflict do nothing;

-- src/master-keys/repository.ts listGenerationRows
select "generation", "check_value", "key_ids", "retired_at" from "master_generations" where "mode" = ? order by "generation";

-- src/sessions/repository.ts findSession
select * from "sessions" where "id" = ? and "team_id" = ? and "mode" = ?;

-- src/sessions/repository.ts insertSessions
insert into "sessions" ("id", "team_id", "mode", "tag_id", "opened_at", "expires_at") values (?, ?, ?, ?, ?, ?);

-- src/sessions/repository.ts sessionVerificationIds
select "id" from "verifications" where "tag_id" = ? and "genuine" = 1 and "scanned_at" >= ? and "scanned_at" <= ? and "session_id" = ? order by "scanned_at", "id";

-- src/signals/repository.ts findThresholdRow
select "counter_gap", "country_jump_window", "replay_burst" from "signal_thresholds" where "team_id" = ? and "mode" = ?;

-- src/signals/repository.ts upsertThresholds
insert into "signal_thresholds" ("team_id", "mode", "counter_gap", "country_jump_window", "replay_burst", "updated_at") values (?, ?, ?, ?, ?, ?) on conflict ("team_id", "mode") do update set "replay_burst" = ?, "updated_at" = ?;

-- src/tag-chips/repository.ts chipOwner
select "tag_id", "team_id" from "chips" where "mode" = ? and "uid" = ? and "tag_id" != ?;

-- src/tag-chips/repository.ts findEmulatedChip
select "emulated_chips".*, "tags"."url", "tags"."team_id", "tags"."mode", "tags"."protocol", "chips"."uid", "chips"."crypto", "chips"."master_generation", "chips"."key_version", "chips"."params", "chips"."mirroring", "chips"."mac_input_from" from "emulated_chips" inner join "tags" on "tags"."id" = "emulated_chips"."tag_id" inner join "chips" on "chips"."tag_id" = "emulated_chips"."tag_id" where "emulated_chips"."tag_id" = ?;

-- src/tag-chips/repository.ts findTagChip
select "chips".*, "tags"."url" from "chips" inner join "tags" on "tags"."id" = "chips"."tag_id" where "chips"."tag_id" = ? and "tags"."team_id" = ? and "tags"."mode" = ?;

-- src/tag-chips/repository.ts findTagsByUrls
select "chips".*, "tags"."id" as "tag_row_id", "tags"."url", "tags"."status", "tags"."session_duration", "tags"."protocol" as "tag_protocol" from "tags" left join "chips" on "chips"."tag_id" = "tags"."id" where "tags"."team_id" = ? and "tags"."mode" = ? and "tags"."url" in (…);

-- src/tag-chips/repository.ts incrementEmulatedCounter
update "emulated_chips" set "counter" = "counter" + ? where "tag_id" = ? returning "counter";

-- src/tag-chips/repository.ts insertChips
insert into "chips" ("tag_id", "team_id", "mode", "protocol", "uid", "crypto", "mirroring", "key_source", "key_version", "sdm_meta_read_key_sealed", "sdm_file_read_key_sealed", "params", "mac_input_from", "write_generation", "master_generation", "last_counter", "session_id", "session_expires_at", "last_country", "last_genuine_at", "tamper_opened", "created_at", "pending_key_version", "pending_master_generation", "app_master_key_sealed") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/tag-chips/repository.ts insertEmulatedChip
insert into "emulated_chips" ("tag_id", "counter", "tamper_permanent", "tamper_current") values (?, ?, ?, ?);

-- src/tag-chips/repository.ts lockChips
select "tag_id", "last_counter", "session_id", "session_expires_at", "last_country", "last_genuine_at", "tamper_opened", "write_generation", (select "tags"."session_duration" from "tags" where "tags"."id" = "chips"."tag_id") as "session_duration" from "chips" where "tag_id" in (…) order by "tag_id";

-- src/tag-chips/repository.ts saveChipProgress
update chips set last_counter = p.column2, session_id = p.column3, session_expires_at = p.column4, last_country = p.column5, last_genuine_at = p.column6, tamper_opened = p.column7 from (values (?, ?, ?, ?, ?, ?, ?)) as p where chips.tag_id = p.column1;

-- src/tag-chips/repository.ts setEmulatedTamper
update "emulated_chips" set "tamper_permanent" = ?, "tamper_current" = ? where "tag_id" = ?;

-- src/tags/repository.ts adjustTagCount
insert into "tag_counts" ("team_id", "mode", "tag_count") values (?, ?, ?) on conflict ("team_id", "mode") do update set "tag_count" = tag_counts.tag_count + ?;

-- src/tags/repository.ts configureCreatedTag
update "tags" set "status" = ?, "configured_at" = ?, "updated_at" = ? where "id" = ? and "team_id" = ? and "mode" = ? and "status" = ? returning "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at";

-- src/tags/repository.ts countFiltered
select count(*) as "n" from "tags" where "team_id" = ? and "mode" = ? and "status" = ? and "url" = ?;
select count(*) as "n" from "tags" where "team_id" = ? and "mode" = ? and "url" >= ? and "url" < ? and "id" in (…);
select count(*) as "n" from "tags" where "team_id" = ? and "mode" = ? and ("id" = ? or instr(comment_folded, ?) > 0);

-- src/tags/repository.ts countTags
select "tag_count" from "tag_counts" where "team_id" = ? and "mode" = ?;

-- src/tags/repository.ts deleteTags
delete from "tag_links" where "tag_id" in (…);
delete from "tags" where "id" in (…);

-- src/tags/repository.ts findChipTagIds
select "tag_id" from "chips" where "mode" = ? and "uid" = ? and "team_id" = ?;

-- src/tags/repository.ts findCounterDrift
select team_id, mode, sum(counter) as counter, sum(n) as rows from ( select team_id, mode, count(*) as n, 0 as counter from tags group by team_id, mode union all select team_id, mode, 0 as n, tag_count as counter from tag_counts ) as worlds group by team_id, mode having sum(counter) <> sum(n);

-- src/tags/repository.ts findTags
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "team_id" = ? and "mode" = ? and "id" in (…);

-- src/tags/repository.ts findTagsForUpdate
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "team_id" = ? and "mode" = ? and "id" in (…) order by "id";

-- src/tags/repository.ts findUrlOwners
select "id", "url" from "tags" where "team_id" = ? and "mode" = ? and "url" in (…);

-- src/tags/repository.ts insertTags
insert into "tags" ("id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at", "comment_folded") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/tags/repository.ts listTags
select "id" from "tags" where "team_id" = ? and "mode" = ? and "status" = ? and "url" = ? order by "updated_at" desc, "id" desc limit ? offset ?;
select "id" from "tags" where "team_id" = ? and "mode" = ? and "url" >= ? and "url" < ? and "id" in (…) order by "updated_at" desc, "id" desc limit ? offset ?;
select "id" from "tags" where "team_id" = ? and "mode" = ? order by "configured_at" asc nulls first, "id" asc limit ? offset ?;
select "id" from "tags" where "team_id" = ? and "mode" = ? order by "updated_at" desc, "id" desc limit ? offset ?;
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "id" in (select "id" from "tags" where "team_id" = ? and "mode" = ? and "status" = ? and "url" = ? order by "updated_at" desc, "id" desc limit ? offset ?) order by "updated_at" desc, "id" desc;
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "id" in (select "id" from "tags" where "team_id" = ? and "mode" = ? and "url" >= ? and "url" < ? and "id" in (…) order by "updated_at" desc, "id" desc limit ? offset ?) order by "updated_at" desc, "id" desc;
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "id" in (select "id" from "tags" where "team_id" = ? and "mode" = ? order by "configured_at" asc nulls first, "id" asc limit ? offset ?) order by "configured_at" asc nulls first, "id" asc;
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at" from "tags" where "id" in (select "id" from "tags" where "team_id" = ? and "mode" = ? order by "updated_at" desc, "id" desc limit ? offset ?) order by "updated_at" desc, "id" desc;

-- src/tags/repository.ts setTagCount
insert into "tag_counts" ("team_id", "mode", "tag_count") values (?, ?, ?) on conflict ("team_id", "mode") do update set "tag_count" = ?;

-- src/tags/repository.ts tagsAfter
select "id", "team_id", "mode", "protocol", "url", "comment", "session_duration", "status", "configured_at", "inserted_at", "updated_at", (select "chips"."uid" from "chips" where "chips"."tag_id" = "tags"."id") as "chip_uid" from "tags" where "team_id" = ? and "mode" = ? order by "id" limit ?;

-- src/tags/repository.ts updateTag
update "tags" set "url" = ?, "comment" = ?, "session_duration" = ?, "updated_at" = ?, "comment_folded" = ? where "id" = ?;

-- src/teams/repository.ts findTeam
select * from "teams" where "id" = ?;

-- src/teams/repository.ts hasAnyTeam
select "id" from "teams" limit ?;

-- src/teams/repository.ts insertTeam
insert into "teams" ("id", "name", "parent_id", "created_at") values (?, ?, ?, ?);

-- src/users/repository.ts deleteLinks
delete from "user_links" where "user_id" = ?;

-- src/users/repository.ts deletePasskeysOf
delete from "user_passkeys" where "user_id" = ?;

-- src/users/repository.ts findLink
select * from "user_links" where "token_hash" = ?;

-- src/users/repository.ts findSession
select "s"."id", "s"."user_id", "s"."mode", "s"."csrf_token", "s"."method", "s"."last_seen_at", "s"."expires_at", "s"."revoked_at", "u"."team_id", "u"."email", "u"."role", "u"."disabled_at" from "user_sessions" as "s" inner join "users" as "u" on "u"."id" = "s"."user_id" where "s"."token_hash" = ?;

-- src/users/repository.ts findUser
select * from "users" where "id" = ?;

-- src/users/repository.ts findUserByEmail
select * from "users" where "email" = ?;

-- src/users/repository.ts findUserInTeam
select * from "users" where "id" = ? and "team_id" = ?;

-- src/users/repository.ts insertChallenge
delete from "sign_in_challenges" where "expires_at" <= ?;
insert into "sign_in_challenges" ("id", "purpose", "user_id", "data", "expires_at") values (?, ?, ?, ?, ?);

-- src/users/repository.ts insertLink
insert into "user_links" ("token_hash", "user_id", "purpose", "created_at", "expires_at") values (?, ?, ?, ?, ?);

-- src/users/repository.ts insertSession
insert into "user_sessions" ("token_hash", "id", "user_id", "mode", "csrf_token", "method", "address", "created_at", "last_seen_at", "expires_at", "revoked_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/users/repository.ts insertUser
insert into "users" ("id", "team_id", "email", "role", "password_hash", "oidc_subject", "created_at", "disabled_at", "last_sign_in_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/users/repository.ts listUsers
select * from "users" where "team_id" = ? order by "team_id", "email";

-- src/users/repository.ts lockTeamUsers
select "id" from "users" where "team_id" = ? order by "id";

-- src/users/repository.ts passkeyCounts
select "user_id", count(*) as "n" from "user_passkeys" where "user_id" in (…) group by "user_id";

-- src/users/repository.ts revokeSession
update "user_sessions" set "revoked_at" = ? where "token_hash" = ? and "revoked_at" is null;

-- src/users/repository.ts revokeSessionsOf
update "user_sessions" set "revoked_at" = ? where "user_id" = ? and "revoked_at" is null;

-- src/users/repository.ts setSessionMode
update "user_sessions" set "mode" = ? where "token_hash" = ?;

-- src/users/repository.ts updateUser
update "users" set "last_sign_in_at" = ? where "id" = ?;
update "users" set "password_hash" = ? where "id" = ?;
update "users" set "role" = ? where "id" = ?;

-- src/users/throttle-repository.ts deleteFailure
delete from "sign_in_failures" where "subject" = ? and "failed_at" = ?;

-- src/users/throttle-repository.ts failuresSince
select count(*) as "n", min("failed_at") as "oldest", max("failed_at") as "newest" from "sign_in_failures" where "subject" = ? and "failed_at" >= ?;

-- src/users/throttle-repository.ts insertFailure
insert into "sign_in_failures" ("subject", "failed_at") values (?, ?);

-- src/users/throttle-repository.ts pruneFailures
delete from "sign_in_failures" where "failed_at" < ?;

-- src/verifications/flag-windows-repository.ts lockWindows
select * from "flag_windows" where "tag_id" in (…) order by "tag_id", "signal";

-- src/verifications/flag-windows-repository.ts saveWindows
insert into "flag_windows" ("tag_id", "signal", "team_id", "mode", "opened_at", "held", "last_held_id") values (?, ?, ?, ?, ?, ?, ?) on conflict ("tag_id", "signal") do update set "opened_at" = ?, "held" = ?, "last_held_id" = ?;

-- src/verifications/repository.ts findGenuineByUrlHashes
select * from "verifications" where "tag_id" in (…) and "genuine" = 1 and "scanned_at" >= ? and "url_hash" in (…) order by "scanned_at";

-- src/verifications/repository.ts findVerification
select * from "verifications" where "id" = ? and "team_id" = ? and "mode" = ?;

-- src/verifications/repository.ts findVerifications
select * from "verifications" where "id" in (…) and +"team_id" = ? and +"mode" = ?;

-- src/verifications/repository.ts insertVerifications
insert into "verifications" ("id", "team_id", "mode", "tag_id", "scanned_at", "url_hash", "client_ip", "country", "write_generation", "genuine", "reason", "read_counter", "tamper_permanent", "tamper_current", "session_id", "signals") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/verifications/repository.ts listVerifications
select * from "verifications" where "tag_id" = ? and +"team_id" = ? and +"mode" = ? and +"reason" = ? and (scanned_at, id) < (?, ?) order by "scanned_at" desc, "id" desc limit ?;
select * from "verifications" where "tag_id" = ? and +"team_id" = ? and +"mode" = ? and +"reason" = ? order by "scanned_at" desc, "id" desc limit ?;
select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? and (scanned_at, id) < (?, ?) order by "scanned_at" desc, "id" desc limit ?;
select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? order by "scanned_at" desc, "id" desc limit ?;
select * from "verifications" where "team_id" = ? and "mode" = ? order by "scanned_at" desc, "id" desc limit ?;
select * from (select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? and (scanned_at, id) < (?, ?) order by "scanned_at" desc, "id" desc) as "v" union all select * from (select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? and (scanned_at, id) < (?, ?) order by "scanned_at" desc, "id" desc) as "v" union all select * from (select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? and (scanned_at, id) < (?, ?) order by "scanned_at" desc, "id" desc) as "v" union all select * from (select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? and (scanned_at, id) < (?, ?) order by "scanned_at" desc, "id" desc) as "v" order by "scanned_at" desc, "id" desc limit ?;
select * from (select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? order by "scanned_at" desc, "id" desc) as "v" union all select * from (select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? order by "scanned_at" desc, "id" desc) as "v" union all select * from (select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? order by "scanned_at" desc, "id" desc) as "v" union all select * from (select * from "verifications" where "team_id" = ? and "mode" = ? and "reason" = ? order by "scanned_at" desc, "id" desc) as "v" order by "scanned_at" desc, "id" desc limit ?;

-- src/verifications/repository.ts refusedTimes
select "scanned_at" from "verifications" where "tag_id" = ? and "scanned_at" > ? and "genuine" = 0 order by "scanned_at" desc limit ?;

-- src/verifications/scan-commit.ts read
pragma data_version;

-- src/webhooks/repository.ts attemptsOf
select * from "delivery_attempts" where "delivery_id" in (…) order by "delivery_id", "attempt";

-- src/webhooks/repository.ts cancelPending
update "deliveries" set "status" = ? where "webhook_id" = ? and "status" = ?;

-- src/webhooks/repository.ts claimDue
select "d"."id", "d"."attempts", "d"."earlier_attempts", "d"."event_id", "e"."payload", "d"."webhook_id", "w"."mode", "w"."url", "w"."enabled", "w"."secret_sealed", "w"."previous_secret_sealed", "w"."previous_secret_until" from "deliveries" as "d" inner join "events" as "e" on "e"."id" = "d"."event_id" left join "webhooks" as "w" on "w"."id" = "d"."webhook_id" where "d"."id" in (…);

-- src/webhooks/repository.ts clearFailing
update "webhooks" set "failing_since" = ? where "id" = ?;

-- src/webhooks/repository.ts countPendingDeliveries
select count(*) as "n" from "deliveries" where "status" = ?;

-- src/webhooks/repository.ts deleteWebhook
delete from "webhooks" where "id" = ?;

-- src/webhooks/repository.ts enabledWebhooks
select "id", "events" from "webhooks" where "team_id" = ? and "mode" = ? and "enabled" = ?;

-- src/webhooks/repository.ts findDelivery
select "d"."id", "d"."event_id", "d"."webhook_id", "d"."status", "d"."attempts", "d"."earlier_attempts", "d"."next_attempt_at", "d"."created_at", "e"."type", "e"."tag_id" from "deliveries" as "d" left join "events" as "e" on "e"."id" = "d"."event_id" where "d"."webhook_id" = ? and "d"."event_id" = ?;

-- src/webhooks/repository.ts findWebhook
select * from "webhooks" where "id" = ? and "team_id" = ? and "mode" = ?;

-- src/webhooks/repository.ts findWebhookById
select * from "webhooks" where "id" = ?;

-- src/webhooks/repository.ts insertAttempts
insert into "delivery_attempts" ("delivery_id", "webhook_id", "event_id", "attempt", "started_at", "duration_ms", "status_code", "error", "response_excerpt") values (?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/webhooks/repository.ts insertDeliveries
insert into "deliveries" ("event_id", "webhook_id", "status", "attempts", "next_attempt_at", "created_at") values (?, ?, ?, ?, ?, ?);

-- src/webhooks/repository.ts insertEvents
insert into "events" ("id", "team_id", "mode", "type", "tag_id", "payload", "created_at") values (?, ?, ?, ?, ?, ?, ?);

-- src/webhooks/repository.ts insertWebhook
insert into "webhooks" ("id", "team_id", "mode", "url", "events", "enabled", "disabled_reason", "secret_sealed", "previous_secret_sealed", "previous_secret_until", "failing_since", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/webhooks/repository.ts listAttempts
select * from "delivery_attempts" where "webhook_id" = ? order by "id" desc limit ?;

-- src/webhooks/repository.ts listDeliveries
select "d"."id", "d"."event_id", "d"."webhook_id", "d"."status", "d"."attempts", "d"."earlier_attempts", "d"."next_attempt_at", "d"."created_at", "e"."type", "e"."tag_id" from "deliveries" as "d" left join "events" as "e" on "e"."id" = "d"."event_id" where "d"."webhook_id" = ? order by "d"."id" desc limit ?;

-- src/webhooks/repository.ts listWebhooks
select * from "webhooks" where "team_id" = ? and "mode" = ? order by "created_at" desc, "id" desc;

-- src/webhooks/repository.ts markDelivered
update "deliveries" set "status" = ?, "attempts" = attempts + 1 where "id" in (…);

-- src/webhooks/repository.ts markFailed
update "deliveries" set "next_attempt_at" = ?, "attempts" = attempts + 1 where "id" = ? and "status" = ?;

-- src/webhooks/repository.ts noteFailing
update "webhooks" set "failing_since" = coalesce(failing_since, ?) where "id" = ? returning "failing_since";

-- src/webhooks/repository.ts requeue
update "deliveries" set "status" = ?, "earlier_attempts" = earlier_attempts + attempts, "attempts" = ?, "next_attempt_at" = ? where "event_id" = ? and "webhook_id" in (select "webhooks"."id" from "webhooks" where "webhooks"."enabled" = ?) and "webhook_id" = ?;
update "deliveries" set "status" = ?, "earlier_attempts" = earlier_attempts + attempts, "attempts" = ?, "next_attempt_at" = ? where "webhook_id" = ? and "created_at" >= ? and "status" != ?;

-- src/webhooks/repository.ts updateWebhook
update "webhooks" set "updated_at" = ?, "enabled" = ? where "id" = ?;

-- src/writer/repository.ts findTagWithStaleWrite
select "tags"."id", "tags"."protocol", "tags"."url", "tags"."status", "writer_sessions"."id" as "stale_id", "writer_sessions"."round_trips" as "stale_round_trips", "writer_sessions"."operation" as "stale_operation" from "tags" left join "writer_sessions" on "writer_sessions"."tag_id" = "tags"."id" and "writer_sessions"."result" is null and "writer_sessions"."expires_at" <= ? where "tags"."id" = ? and "tags"."team_id" = ? and "tags"."mode" = ?;

-- src/writer/repository.ts findWrite
select "writer_sessions".* from "writer_sessions" where "writer_sessions"."id" = ? and "writer_sessions"."team_id" = ? and "writer_sessions"."mode" = ?;

-- src/writer/repository.ts findWriteWithTag
select "writer_sessions".*, "tags"."protocol" as "tag_protocol", "tags"."url" as "tag_url" from "writer_sessions" left join "tags" on "tags"."id" = "writer_sessions"."tag_id" and "tags"."team_id" = "writer_sessions"."team_id" and "tags"."mode" = "writer_sessions"."mode" where "writer_sessions"."id" = ? and "writer_sessions"."team_id" = ? and "writer_sessions"."mode" = ?;

-- src/writer/repository.ts insertWrite
insert into "writer_sessions" ("id", "team_id", "mode", "tag_id", "step", "state", "round_trips", "expires_at", "operation", "result", "reason", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- src/writer/repository.ts listTagWrites
select * from "writer_sessions" where "tag_id" = ? and "team_id" = ? and "mode" = ? order by "created_at" desc, "id" desc limit ?;

-- src/writer/repository.ts updateRunningWrite
update "writer_sessions" set "round_trips" = ?, "step" = ?, "state" = ?, "expires_at" = ?, "updated_at" = ? where "id" = ? and "round_trips" = ? and "result" is null;
update "writer_sessions" set "step" = ?, "state" = ?, "result" = ?, "reason" = ?, "round_trips" = ?, "updated_at" = ? where "id" = ? and "round_trips" = ? and "result" is null;
update "writer_sessions" set "step" = ?, "state" = ?, "result" = ?, "round_trips" = ?, "updated_at" = ? where "id" = ? and "round_trips" = ? and "result" is null;

-- Functions of src/ that build statements the flows of test/house/sql-snapshot.solo.test.ts did not run:
--   src/cases/digest-repository.ts caseDigest
--   src/cases/repository.ts filtered
--   src/db/change-feed.ts notifyInTransaction
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
--   src/sessions/repository.ts sessionVerifications
--   src/tag-chips/repository.ts commitPendingKeys
--   src/tag-chips/repository.ts recordPendingKeys
--   src/tags/repository.ts chipTags
--   src/tags/repository.ts filtered
--   src/tags/repository.ts lockTagCounters
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
--   src/users/throttle-repository.ts lockSubjects
--   src/verifications/flag-windows-repository.ts clearHeld
--   src/verifications/flag-windows-repository.ts dueWindows
--   src/verifications/repository.ts caseWalk
--   src/verifications/repository.ts genuineByUrlHashes
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
