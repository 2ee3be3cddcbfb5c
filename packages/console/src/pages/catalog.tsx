// The catalog: the world's products and tokens (what a tag's verifications show, and what its owner
// proves holding), creating them, and who holds a token in the embedded holdings table.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describeProblems, must, type Api, type Token } from '../api.ts';
import { ErrorLine, Head, Loading, MessageLine, TableRegion, When, type Message } from '../components/ui.tsx';
import { useLoad, useWrite, type Loaded } from '../hooks.ts';
import { useSession } from '../session.ts';

/** An optional text field: left empty, it is not sent. */
const given = (value: string) => (value.trim() === '' ? undefined : value);

export function CatalogPage() {
  const { api, can } = useSession();
  const products = useLoad(() => must(api.GET('/products')), [api]);
  const tokens = useLoad(() => must(api.GET('/tokens')), [api]);
  // A new form after each creation: the next one starts empty. Its success line is the page's, so that
  // it outlives the form it was made with.
  const [made, setMade] = useState(0);
  const [created, setCreated] = useState<{ what: 'product' | 'token'; message: Message } | null>(null);
  const onCreated = (what: 'product' | 'token', reload: () => void) => (id: string) => {
    setMade((n) => n + 1);
    setCreated({ what, message: { error: false, text: `Created ${what} ${id}.` } });
    reload();
  };

  return (
    <>
      <h1>Catalog</h1>
      <CatalogSection
        title="Products"
        list={products}
        columns={['Product', 'Name', 'Description', 'Created']}
        row={(p) => (
          <>
            <td>{p.attributes.name}</td>
            <td>{p.attributes.description ?? <span class="muted">—</span>}</td>
            <td>
              <When iso={p.attributes.created_at} />
            </td>
          </>
        )}
        form={can.write && <ProductForm key={`p${made}`} api={api} onCreated={onCreated('product', products.reload)} />}
        message={created?.what === 'product' ? created.message : null}
      />
      <CatalogSection
        title="Tokens"
        list={tokens}
        columns={['Token', 'Name', 'Symbol', 'Chain', 'Supply', 'On chain', 'Created']}
        row={(t) => (
          <>
            <td>{t.attributes.name}</td>
            <td>{t.attributes.symbol}</td>
            <td>{t.attributes.chain}</td>
            <td>{t.attributes.supply}</td>
            <td class="url">{onChain(t)}</td>
            <td>
              <When iso={t.attributes.created_at} />
            </td>
          </>
        )}
        form={can.write && <TokenForm key={`t${made}`} api={api} onCreated={onCreated('token', tokens.reload)} />}
        message={created?.what === 'token' ? created.message : null}
      />
      {tokens.data && tokens.data.data.length > 0 && <Holdings tokens={tokens.data.data} />}
    </>
  );
}

/** One kind of the catalog: its table (the id, then `row`'s cells), the form that creates one, and that form's outcome. */
function CatalogSection<T extends { id: string }>(props: {
  title: 'Products' | 'Tokens';
  list: Loaded<{ data: T[] }>;
  columns: string[];
  row: (item: T) => ComponentChildren;
  form: ComponentChildren;
  message: Message;
}) {
  const { title, list } = props;
  const heading = `${title.toLowerCase()}-heading`;
  return (
    <section aria-labelledby={heading}>
      <h2 id={heading}>{title}</h2>
      <ErrorLine error={list.error} />
      <Loading loading={list.loading} />
      {list.data && list.data.data.length === 0 && <p class="muted">No {title.toLowerCase()} yet.</p>}
      {list.data && list.data.data.length > 0 && (
        <TableRegion label={title}>
          <table>
            <Head columns={props.columns} />
            <tbody>
              {list.data.data.map((item) => (
                <tr key={item.id}>
                  <td>
                    <code>{item.id}</code>
                  </td>
                  {props.row(item)}
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {props.form}
      <MessageLine message={props.message} />
    </section>
  );
}

/** Where the token lives: Cardano's policy and asset name, Ethereum's contract (and token id). */
function onChain(t: Token): string {
  const a = t.attributes;
  if (a.chain === 'cardano') return `${a.policy_id}.${a.asset_name}`;
  return [a.contract_address, a.standard, a.token_id].filter((part) => part !== null).join(' · ');
}

function ProductForm(props: { api: Api; onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  const [imageUrl, setImageUrl] = useState('');
  const [description, setDescription] = useState('');
  const writes = useWrite(describeProblems);
  const create = async () => {
    const attributes = { name, image_url: given(imageUrl), description: given(description) };
    await writes.send(props.api.POST('/products', { body: { data: { type: 'products', attributes } } }), (data) => props.onCreated(data.data.id));
  };
  return (
    <form
      class="panel"
      aria-labelledby="new-product-heading"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h3 id="new-product-heading">Create a product</h3>
      <label for="product-name">Name</label>
      <input id="product-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="product-image">Image URL (optional)</label>
      <input id="product-image" type="url" value={imageUrl} onInput={(e) => setImageUrl(e.currentTarget.value)} placeholder="https://example.com/item.png" />
      <label for="product-description">Description (optional)</label>
      <textarea id="product-description" maxLength={2000} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit">Create product</button>
      </div>
      <MessageLine message={writes.message} />
    </form>
  );
}

function TokenForm(props: { api: Api; onCreated: (id: string) => void }) {
  const [chain, setChain] = useState<'cardano' | 'ethereum'>('ethereum');
  const [fields, setFields] = useState<Record<string, string>>({ standard: 'erc721' });
  const writes = useWrite(describeProblems);
  const field = (name: string) => fields[name] ?? '';
  const input = (name: string, label: string, extra: Record<string, unknown> = {}) => (
    <>
      <label for={`token-${name}`}>{label}</label>
      <input id={`token-${name}`} {...extra} value={field(name)} onInput={(e) => setFields({ ...fields, [name]: e.currentTarget.value })} />
    </>
  );
  const create = async () => {
    const supply = field('supply');
    const attributes =
      chain === 'cardano'
        ? { policy_id: field('policy_id'), asset_name: field('asset_name') }
        : { contract_address: field('contract_address'), standard: field('standard'), token_id: field('standard') === 'erc20' ? undefined : field('token_id') };
    const body = {
      data: {
        type: 'tokens',
        attributes: { chain, name: field('name'), symbol: field('symbol'), supply: /^\d+$/.test(supply) ? Number(supply) : supply, ...attributes },
      },
    };
    // The form sends what was typed; the API names each value it refuses.
    await writes.send(props.api.POST('/tokens', { body: body as never }), (data) => props.onCreated(data.data.id));
  };
  return (
    <form
      class="panel"
      aria-labelledby="new-token-heading"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h3 id="new-token-heading">Create a token</h3>
      <label for="token-chain">Chain</label>
      <select id="token-chain" value={chain} onChange={(e) => setChain(e.currentTarget.value as 'cardano' | 'ethereum')}>
        <option value="ethereum">Ethereum</option>
        <option value="cardano">Cardano</option>
      </select>
      {input('name', 'Name', { required: true, maxLength: 200 })}
      {input('symbol', 'Symbol', { required: true, maxLength: 32 })}
      {input('supply', 'Supply', { required: true, inputMode: 'numeric' })}
      {chain === 'cardano' ? (
        <>
          {input('policy_id', 'Policy id (56 hex characters)', { required: true })}
          {input('asset_name', 'Asset name (hex)')}
        </>
      ) : (
        <>
          {input('contract_address', 'Contract address', { required: true, placeholder: '0x…' })}
          <label for="token-standard">Standard</label>
          <select id="token-standard" value={field('standard')} onChange={(e) => setFields({ ...fields, standard: e.currentTarget.value })}>
            <option value="erc721">ERC-721</option>
            <option value="erc1155">ERC-1155</option>
            <option value="erc20">ERC-20</option>
          </select>
          {field('standard') !== 'erc20' && input('token_id', 'Token id (decimal)', { required: true, inputMode: 'numeric' })}
        </>
      )}
      <div class="actions">
        <button type="submit">Create token</button>
      </div>
      <MessageLine message={writes.message} />
    </form>
  );
}

/** Who holds a token in the embedded table (the sandbox's always; production's unless a chain is asked). */
function Holdings(props: { tokens: Token[] }) {
  const { api, can } = useSession();
  const [tokenId, setTokenId] = useState(props.tokens[0]!.id);
  const token = props.tokens.find((t) => t.id === tokenId) ?? props.tokens[0]!;
  const holdings = useLoad(() => must(api.GET('/tokens/{id}/holdings', { params: { path: { id: token.id } } })), [api, token.id]);
  const [address, setAddress] = useState('');
  const [quantity, setQuantity] = useState('1');
  const writes = useWrite(describeProblems);

  const set = () =>
    writes.send(
      api.POST('/tokens/{id}/holdings', {
        params: { path: { id: token.id } },
        body: { data: { type: 'holdings', attributes: { address: address.trim(), quantity: quantity.trim() } } },
      }),
      (data) => {
        setAddress('');
        holdings.reload();
        return `${data.data.id} holds ${data.data.attributes.quantity} of ${token.attributes.name}.`;
      },
    );
  const unset = (holder: string) =>
    writes.send(api.DELETE('/tokens/{id}/holdings/{address}', { params: { path: { id: token.id, address: holder } } }), () => {
      holdings.reload();
      return `Removed ${holder}'s holding of ${token.attributes.name}.`;
    });

  return (
    <section aria-labelledby="holdings-heading">
      <h2 id="holdings-heading">Holdings</h2>
      <label for="holdings-token">Token</label>
      <select
        id="holdings-token"
        value={token.id}
        onChange={(e) => {
          setTokenId(e.currentTarget.value);
          writes.setMessage(null);
        }}
      >
        {props.tokens.map((t) => (
          <option key={t.id} value={t.id}>
            {t.attributes.name} ({t.attributes.symbol}, {t.attributes.chain})
          </option>
        ))}
      </select>
      <ErrorLine error={holdings.error} />
      {holdings.data && holdings.data.data.length === 0 && <p class="muted">No one holds {token.attributes.name} in the embedded table.</p>}
      {holdings.data && holdings.data.data.length > 0 && (
        <TableRegion label={`Holdings of ${token.attributes.name}`}>
          <table>
            <Head columns={['Address', 'Quantity', 'Set', can.write && { hidden: 'Actions' }]} />
            <tbody>
              {holdings.data.data.map((h) => (
                <tr key={h.id}>
                  <td class="url">{h.id}</td>
                  <td>{h.attributes.quantity}</td>
                  <td>
                    <When iso={h.attributes.updated_at} />
                  </td>
                  {can.write && (
                    <td>
                      <button type="button" class="secondary" aria-label={`Remove the holding of ${h.id}`} onClick={() => void unset(h.id)}>
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {can.write && (
        <form
          class="panel"
          aria-labelledby="set-holding-heading"
          onSubmit={(event) => {
            event.preventDefault();
            void set();
          }}
        >
          <h3 id="set-holding-heading">Set a holding of {token.attributes.name}</h3>
          <label for="holding-address">Wallet address</label>
          <input id="holding-address" required value={address} onInput={(e) => setAddress(e.currentTarget.value)} />
          <label for="holding-quantity">Quantity</label>
          <input id="holding-quantity" required inputMode="numeric" value={quantity} onInput={(e) => setQuantity(e.currentTarget.value)} />
          <div class="actions">
            <button type="submit">Set holding</button>
          </div>
        </form>
      )}
      <MessageLine message={writes.message} />
    </section>
  );
}
