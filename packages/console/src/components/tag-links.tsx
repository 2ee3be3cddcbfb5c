// The product a tag's verifications show and the token their owner can prove (set by `tapproof tags link`).
import { must } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { ErrorLine, Facts, When } from './ui.tsx';

export function TagLinks(props: { tagId: string }) {
  const { api } = useSession();
  const links = useLoad(() => must(api.GET('/tags/{id}/links', { params: { path: { id: props.tagId } } })), [api, props.tagId]);
  const a = links.data?.data.attributes;
  return (
    <section aria-labelledby="links-heading">
      <h2 id="links-heading">Product and token</h2>
      <ErrorLine error={links.error} />
      {a && !a.product && !a.token && <p class="muted">Not linked (tapproof tags link sets a product and a token).</p>}
      {a && (a.product || a.token) && (
        <Facts
          items={[
            ['Product', a.product ? `${a.product.name} (${a.product.id})` : null],
            ['Token', a.token ? `${a.token.name} (${a.token.symbol}, ${a.token.chain}, ${a.token.id})` : null],
            ['Linked', <When iso={a.updated_at} />],
          ]}
        />
      )}
    </section>
  );
}
