// One scan: its outcome and what the chip said (counter, tamper loop), its signals and what to do about
// them, its session, where it came from (the client IP the brand's backend passed on, and its country),
// then what the extension API made of it: the pages it was claimed on, the proofs of its item's owner.
import { must } from '../api.ts';
import { ScanClaims } from '../components/scan-claims.tsx';
import { ScanOwnershipProofs } from '../components/scan-ownership-proofs.tsx';
import { SignalNotes } from '../components/signal-badges.tsx';
import { ErrorLine, Facts, Link, Loading, Outcome, When } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { REASON_LABELS, type Reason } from '../reasons.ts';
import { useSession } from '../session.ts';

export function ScanPage(props: { id: string }) {
  const { api } = useSession();
  const scan = useLoad(() => must(api.GET('/verifications/{id}', { params: { path: { id: props.id } } })), [api, props.id]);
  const a = scan.data?.data.attributes;
  return (
    <>
      <h1>Scan {props.id}</h1>
      <p>
        <Link to="/scans">All scans</Link>
      </p>
      <ErrorLine error={scan.error} />
      <Loading loading={scan.loading} />
      {a && (
        <Facts
          items={[
            ['Outcome', <Outcome scan={a} />],
            ['Reason', `${a.reason} (${REASON_LABELS[a.reason as Reason] ?? a.reason})`],
            ['Signals', <SignalNotes signals={a.signals} />],
            ['Scanned', <When iso={a.scanned_at} />],
            ['Tag', <Link to={`/tags/${a.tag_id}`}>{a.tag_id}</Link>],
            ['Read counter', a.read_counter ?? null],
            ['Tamper', a.tamper ? `permanent ${a.tamper.permanent}, current ${a.tamper.current}` : 'no tamper loop'],
            ['Session', a.session_id],
            ['Country', a.country ?? 'unknown'],
            ['Client IP', a.client_ip ?? 'not given'],
            ['Extension id', <code>{a.verification_id}</code>],
          ]}
        />
      )}
      {/* Once the scan is found: an unknown scan's lists would only repeat its error. */}
      {a && <ScanClaims scanId={props.id} />}
      {a && <ScanOwnershipProofs scanId={props.id} />}
    </>
  );
}
