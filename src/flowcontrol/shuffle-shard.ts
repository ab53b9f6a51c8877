/**
 * Shuffle sharding: a flow is dealt a "hand" of `handSize` distinct queues out of `queues`, from a hash
 * of its identity, so two flows rarely share a whole hand and one heavy flow crowds only its own queues.
 */

/** 32-bit FNV-1a of a string (its UTF-16 code units), from a given offset basis. */
function fnv1a(s: string, basis: number): number {
  let h = basis >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A 53-bit hash (exact in a double) of a flow's key: two independent 32-bit hashes. */
export function flowHash(key: string): number {
  const hi = fnv1a(key, 0x811c9dc5) >>> 11; // 21 bits
  const lo = fnv1a(key, 0x050c5d1f); // 32 bits
  return hi * 0x1_0000_0000 + lo;
}

/**
 * Deals `handSize` distinct queue indexes below `deckSize` from `hash`, as mixed-radix digits of the hash
 * (radix deckSize, deckSize-1, ...), each digit picking among the cards not dealt yet.
 */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const n = Math.min(handSize, deckSize);
  const hand: number[] = [];
  let h = hash;
  for (let i = 0; i < n; i++) {
    const radix = deckSize - i;
    let card = h % radix;
    h = Math.floor(h / radix);
    // Skip over cards already dealt: walking them in ascending order makes the result distinct.
    const dealt = hand.slice().sort((a, b) => a - b);
    for (const d of dealt) if (card >= d) card++;
    hand.push(card);
  }
  return hand;
}
