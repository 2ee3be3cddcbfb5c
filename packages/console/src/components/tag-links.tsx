// The product a tag's verifications show and the token their owner can prove, and (for a write role)
// linking the tag to another product or token of its world, or unlinking them.
import { useState } from 'preact/hooks';
import { describeProblems, must } from '../api.ts';
import { useLoad, useWrite } from '../hooks.ts';
import { useSession } from '../session.ts';
import { ErrorLine, Facts, MessageLine, When } from './ui.tsx';

export function TagLinks(props: { tagId: string }) {
  const { api, can } = useSession();
  const links = useLoad(() => must(api.GET('/tags/{id}/links', { params: { path: { id: props.tagId } } })), [api, props.tagId]);
  const a = links.data?.data.attributes;
  return (
    <section aria-labelledby="links-heading">
      <h2 id="links-heading">Product and token</h2>
      <ErrorLine error={links.error} />
      {a && !a.product && !a.token && <p class="muted">Not linked to a product or a token.</p>}
      {a && (a.product || a.token) && (
        <Facts
          items={[
            ['Product', a.product ? `${a.product.name} (${a.product.id})` : null],
            ['Token', a.token ? `${a.token.name} (${a.token.symbol}, ${a.token.chain}, ${a.token.id})` : null],
            ['Linked', <When iso={a.updated_at} />],
          ]}
        />
      )}
      {can.write && a && (
        <LinkForm key={`${a.product?.id}/${a.token?.id}`} tagId={props.tagId} product={a.product?.id ?? ''} token={a.token?.id ?? ''} onLinked={links.reload} />
      )}
    </section>
  );
}

/** The choices are the world's own products and tokens: the API refuses any other. */
function LinkForm(props: { tagId: string; product: string; token: string; onLinked: () => void }) {
  const { api } = useSession();
  const catalog = useLoad(async () => {
    const [products, tokens] = await Promise.all([must(api.GET('/products')), must(api.GET('/tokens'))]);
    return { products: products.data, tokens: tokens.data };
  }, [api]);
  const [product, setProduct] = useState(props.product);
  const [token, setToken] = useState(props.token);
  const writes = useWrite(describeProblems);

  const save = () =>
    writes.send(
      api.PATCH('/tags/{id}/links', {
        params: { path: { id: props.tagId } },
        body: { data: { type: 'tag-links', attributes: { product_id: product || null, token_id: token || null } } },
      }),
      () => {
        props.onLinked();
        return 'Links saved.';
      },
    );

  return (
    <form
      class="panel"
      aria-labelledby="link-heading"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h3 id="link-heading">Link to a product and a token</h3>
      <ErrorLine error={catalog.error} />
      <label for="link-product">Product</label>
      <select id="link-product" value={product} onChange={(e) => setProduct(e.currentTarget.value)}>
        <option value="">No product</option>
        {catalog.data?.products.map((p) => (
          <option key={p.id} value={p.id}>
            {p.attributes.name} ({p.id})
          </option>
        ))}
      </select>
      <label for="link-token">Token</label>
      <select id="link-token" value={token} onChange={(e) => setToken(e.currentTarget.value)}>
        <option value="">No token</option>
        {catalog.data?.tokens.map((t) => (
          <option key={t.id} value={t.id}>
            {t.attributes.name} ({t.attributes.symbol}, {t.attributes.chain})
          </option>
        ))}
      </select>
      <div class="actions">
        <button type="submit">Save links</button>
      </div>
      <MessageLine message={writes.message} />
    </form>
  );
}
